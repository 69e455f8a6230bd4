// ElevenLabs (provider kind `elevenlabs`) through the official OpenAI SDK, routed to the
// simulated ElevenLabs API (prefix /elevenlabs): speech in every format the catalog lists,
// charged per character; transcription with Scribe, charged per minute of the measured audio;
// formats ElevenLabs cannot produce are 422 before any hold; its errors release the hold.
import type { ExecutionContext } from 'ava';
import OpenAI, { toFile } from 'openai';
import { priceInUnits } from '../../src/billing/pricing.js';
import { readMp3Info } from '../../src/sim/media/mp3.js';
import { readWavInfo } from '../../src/sim/media/wav.js';
import { startSimulator } from '../../src/sim/server.js';
import { testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

const speechPrice = '9000.00'; // $0.10 per 1000 characters
const scribePrice = '0.60'; // $0.40 per hour
/** A real-looking ElevenLabs voice id (the simulator refuses names that are not one). */
const voiceId = '21m00Tcm4TlvDq8ikWAM';

async function setup(t: ExecutionContext, database: TestDatabase) {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const raw = {
    providers: {
      sim: { kind: 'sim' },
      eleven: { kind: 'elevenlabs', base_url: `${simulator.url}/elevenlabs`, api_key_env: 'TEST_ELEVENLABS_KEY', voice_ids: { alloy: voiceId } },
    },
    models: [
      {
        id: 'elevenlabs/multilingual-v2',
        name: 'Eleven Multilingual v2',
        type: 'tts',
        route: { provider: 'eleven', model: 'eleven_multilingual_v2' },
        pricing: { per_1m_characters: speechPrice },
        capabilities: { formats: ['mp3', 'opus', 'wav', 'pcm'] },
      },
      {
        id: 'elevenlabs/scribe-v1',
        name: 'Scribe v1',
        type: 'stt',
        route: { provider: 'eleven', model: 'scribe_v1' },
        pricing: { per_minute: scribePrice },
        capabilities: { formats: ['json', 'text', 'srt', 'verbose_json', 'vtt'] },
      },
    ],
  };
  const gateway = await startGateway(t, database, { raw, env: { TEST_ELEVENLABS_KEY: 'xi-test-key' } });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const charges = () => database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' }).orderBy('id', 'desc');
  const lastCharge = async () => {
    const row = await charges().first();
    return row ? -BigInt(row.amount_units) : 0n;
  };
  const balance = () => gateway.services.ledger.balance(client.accountId);
  return { gateway, openai, lastCharge, charges, balance };
}

testOnBackends('ElevenLabs speech: mp3, wav, pcm and opus of the expected length, each charged per character; flac and aac are 422', async (t, database) => {
  const { openai, lastCharge, balance } = await setup(t, database);
  const before = await balance();
  const input = 'Hello from the gateway, spoken by ElevenLabs in every format the catalog lists.';
  const expected = priceInUnits([{ quantity: [...input].length, price: speechPrice, per: 1_000_000 }]);
  t.is(expected, BigInt([...input].length) * 90n, '0.009 RUB per character');

  const mp3 = await openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: 'alloy', input });
  t.regex(mp3.headers.get('content-type')!, /audio\/mpeg/);
  const mp3Info = readMp3Info(Buffer.from(await mp3.arrayBuffer()))!;
  t.true(Math.abs(mp3Info.seconds - input.length / 15) < 0.1, `${mp3Info.seconds} s`);
  t.is(await lastCharge(), expected);

  const wav = await openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: voiceId, input, response_format: 'wav' });
  const wavInfo = readWavInfo(Buffer.from(await wav.arrayBuffer()))!;
  t.like(wavInfo, { sampleRate: 24_000 });
  t.true(Math.abs(wavInfo.seconds - input.length / 15) < 0.01);
  t.is(await lastCharge(), expected);

  const pcm = Buffer.from(await (await openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: 'alloy', input, response_format: 'pcm', speed: 1.2 })).arrayBuffer());
  t.is(pcm.length, 2 * Math.round((24_000 * input.length) / 15 / 1.2), '16-bit 24 kHz, 1.2 times as fast');
  const opus = Buffer.from(await (await openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: 'alloy', input, response_format: 'opus' })).arrayBuffer());
  t.is(opus.subarray(0, 4).toString('latin1'), 'OggS');
  t.is(await lastCharge(), expected);
  const after = await balance();
  t.is(before.balanceUnits - after.balanceUnits, 4n * expected);

  for (const format of ['flac', 'aac'] as const) {
    const refused = (await t.throwsAsync(openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: 'alloy', input, response_format: format }))) as any;
    t.is(refused.status, 422, format);
    t.regex(refused.message, /'mp3', 'opus', 'wav', 'pcm'/);
  }
  const fast = (await t.throwsAsync(openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: 'alloy', input, speed: 2 }))) as any;
  t.is(fast.status, 400);
  t.regex(fast.message, /speeds from 0.7 to 1.2/);
  const unknownVoice = (await t.throwsAsync(openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: 'nova', input }))) as any;
  t.is(unknownVoice.status, 400);
  t.regex(unknownVoice.message, /voice_id nova was not found/);
  t.deepEqual(await balance(), after, 'refusals charge nothing and hold nothing');
});

testOnBackends('ElevenLabs speech as SSE events: the same audio, charged once', async (t, database) => {
  const { openai, lastCharge, charges } = await setup(t, database);
  const input = 'Streamed speech.';
  const response = await openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: 'alloy', input, response_format: 'wav', stream_format: 'sse' } as any);
  const text = await response.text();
  const audio = Buffer.concat(
    text
      .split('\n\n')
      .filter((event) => event.startsWith('data: '))
      .map((event) => JSON.parse(event.slice(6)))
      .filter((event) => event.type === 'speech.audio.delta')
      .map((event) => Buffer.from(event.audio, 'base64')),
  );
  t.is(readWavInfo(audio)!.sampleRate, 24_000);
  t.is(await lastCharge(), BigInt([...input].length) * 90n);
  t.is((await charges()).length, 1);
});

testOnBackends('ElevenLabs Scribe: json, text, verbose_json with words and segments, srt; charged per second of the measured audio', async (t, database) => {
  const { openai, lastCharge, charges, balance } = await setup(t, database);
  // 30 seconds of audio, made by the same provider.
  const wav = Buffer.from(await (await openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: 'alloy', input: 'x'.repeat(450), response_format: 'wav' })).arrayBuffer());
  t.is(readWavInfo(wav)!.seconds, 30);
  const transcriptionPrice = priceInUnits([{ quantity: 30, price: scribePrice, per: 60 }]);
  t.is(transcriptionPrice, 3_000n, '0.30 RUB for 30 s at 0.60 RUB a minute');

  const json = await openai.audio.transcriptions.create({ model: 'elevenlabs/scribe-v1', file: await toFile(wav, 'meeting.wav', { type: 'audio/wav' }) });
  t.is(json.text, 'Simulated transcript of 30.0 seconds of audio. The file was meeting.wav.');
  t.is(await lastCharge(), transcriptionPrice);

  const text = await openai.audio.transcriptions.create({ model: 'elevenlabs/scribe-v1', file: await toFile(wav, 'meeting.wav', { type: 'audio/wav' }), response_format: 'text' });
  t.is(text as unknown as string, 'Simulated transcript of 30.0 seconds of audio. The file was meeting.wav.\n');

  const verbose = (await openai.audio.transcriptions.create({ model: 'elevenlabs/scribe-v1', file: await toFile(wav, 'meeting.wav', { type: 'audio/wav' }), response_format: 'verbose_json', language: 'en' })) as any;
  t.is(verbose.language, 'en');
  t.is(verbose.duration, 30);
  t.is(verbose.words.length, 11, 'the spacing entries Scribe sends are not words');
  t.deepEqual(verbose.words[0], { word: 'Simulated', start: 0, end: 2.727 });
  t.deepEqual(verbose.segments.map((segment: any) => segment.text), ['Simulated transcript of 30.0 seconds of audio.', 'The file was meeting.wav.']);

  const srt = await openai.audio.transcriptions.create({ model: 'elevenlabs/scribe-v1', file: await toFile(wav, 'meeting.wav', { type: 'audio/wav' }), response_format: 'srt' });
  t.is(srt as unknown as string, '1\n00:00:00,000 --> 00:00:19,091\nSimulated transcript of 30.0 seconds of audio.\n\n2\n00:00:19,091 --> 00:00:30,000\nThe file was meeting.wav.\n');
  t.is((await charges()).length, 5, 'one speech and four transcriptions');

  const before = await balance();
  const prompt = (await t.throwsAsync(openai.audio.transcriptions.create({ model: 'elevenlabs/scribe-v1', file: await toFile(wav, 'x.wav', { type: 'audio/wav' }), prompt: 'names: Ada' }))) as any;
  t.is(prompt.status, 400);
  t.regex(prompt.message, /takes no prompt/);
  const limited = (await t.throwsAsync(openai.audio.transcriptions.create({ model: 'elevenlabs/scribe-v1', file: await toFile(wav, 'busy [[sim:status=429]].wav', { type: 'audio/wav' }) }))) as any;
  t.is(limited.status, 502);
  t.regex(limited.message, /too many concurrent requests/);
  t.is(limited.headers.get('retry-after'), '1');
  t.deepEqual(await balance(), before, 'failed calls release their holds');
});
