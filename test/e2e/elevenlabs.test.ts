// ElevenLabs (provider kind `elevenlabs`) through the official OpenAI SDK, routed to the
// simulated ElevenLabs API (prefix /elevenlabs): speech in every format the catalog lists,
// charged per character; transcription with Scribe, charged per minute of the measured audio;
// formats ElevenLabs cannot produce are 422 before any hold; its errors release the hold.
// Speech is relayed from ElevenLabs' `/stream` as it comes: the simulator's gate holds the
// upstream open while the test sees the first pieces reach it, uncharged until the stream ended.
import type { ExecutionContext } from 'ava';
import OpenAI, { toFile } from 'openai';
import { priceInUnits } from '../../src/billing/pricing.js';
import { readMp3Info } from '../../src/sim/media/mp3.js';
import { readWavInfo } from '../../src/sim/media/wav.js';
import { startSimulator } from '../../src/sim/server.js';
import { assertLedgerInvariants, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
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
  /** Releases one piece of a gated simulator stream; the gate's state. */
  const gate = async (id: number, method: 'GET' | 'POST' = 'GET') => (await fetch(`${simulator.url}/elevenlabs/__sim/gates/${id}`, { method })).json() as Promise<{ released: number; sent: number; ended: boolean }>;
  return { gateway, openai, lastCharge, charges, balance, gate };
}

/** Reads a body on until `enough` says so (no timer: the read waits for bytes). */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, received: Uint8Array[], enough: (bytes: Buffer) => boolean): Promise<Buffer> {
  for (;;) {
    const bytes = Buffer.concat(received);
    if (enough(bytes)) return bytes;
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(received);
    received.push(value);
  }
}

/** The audio of the complete `speech.audio.delta` events in an SSE text, and the other events' types. */
function sseAudio(text: string): { audio: Buffer; deltas: number; others: any[] } {
  const events = text
    .split('\n\n')
    .slice(0, -1)
    .map((event) => JSON.parse(event.slice(event.indexOf('data: ') + 6)));
  const deltas = events.filter((event) => event.type === 'speech.audio.delta');
  return { audio: Buffer.concat(deltas.map((event) => Buffer.from(event.audio, 'base64'))), deltas: deltas.length, others: events.filter((event) => event.type !== 'speech.audio.delta') };
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

testOnBackends('ElevenLabs streamed speech (SSE): pieces reach the client while the upstream is still speaking; charged once, after it ended', async (t, database) => {
  const { openai, charges, balance, gate } = await setup(t, database);
  const input = 'Speech relayed as it is spoken, piece by piece. [[sim:gate=1]]';
  const price = BigInt([...input].length) * 90n;
  const response = await openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: 'alloy', input, response_format: 'wav', stream_format: 'sse' } as any);
  t.regex(response.headers.get('content-type')!, /text\/event-stream/);
  // 16-bit 24 kHz mono for input.length / 15 seconds, plus the 44-byte header, in 4 pieces.
  const wavBytes = 44 + 2 * Math.round((24_000 * input.length) / 15);
  const piece = Math.ceil(wavBytes / 4);
  const reader = response.body!.getReader();
  const received: Uint8Array[] = [];
  const decoded = () => sseAudio(Buffer.concat(received).toString('utf8'));
  await readUntil(reader, received, () => decoded().audio.length >= piece);
  t.deepEqual(await gate(1), { released: 0, sent: 1, ended: false }, 'the upstream is held after its first piece');
  t.is(decoded().audio.length, piece, 'the first piece reached the client before the upstream sent more');
  t.deepEqual(await charges(), [], 'nothing is charged while the stream runs');
  t.is((await balance()).heldUnits, price, 'the price is held');
  await gate(1, 'POST');
  await readUntil(reader, received, () => decoded().audio.length >= 2 * piece);
  t.like(await gate(1), { sent: 2, ended: false });
  t.is(decoded().audio.length, 2 * piece, 'a second piece, still before the upstream ended');
  t.true(decoded().deltas >= 2);
  await gate(1, 'POST');
  await gate(1, 'POST');
  const all = await readUntil(reader, received, () => false);
  const { audio, others } = sseAudio(all.toString('utf8'));
  t.is(audio.length, wavBytes);
  t.like(readWavInfo(audio), { sampleRate: 24_000 });
  t.deepEqual(others.map((event) => event.type), ['speech.audio.done']);
  t.like(await gate(1), { sent: 4, ended: true });
  t.deepEqual((await charges()).map((row) => -BigInt(row.amount_units)), [price], 'charged once, the characters\' price');
  t.is((await balance()).heldUnits, 0n);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('ElevenLabs streamed speech (raw audio): the mp3 arrives chunked as spoken; charged once after it ended', async (t, database) => {
  const { openai, charges, balance, gate } = await setup(t, database);
  const input = 'Raw audio, streamed. [[sim:gate=2]]';
  const price = BigInt([...input].length) * 90n;
  const response = await openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: 'alloy', input });
  t.regex(response.headers.get('content-type')!, /audio\/mpeg/);
  t.is(response.headers.get('content-length'), null, 'chunked: the length is not known up front');
  const reader = response.body!.getReader();
  const received: Uint8Array[] = [];
  const first = await readUntil(reader, received, (bytes) => bytes.length > 0);
  t.deepEqual(await gate(2), { released: 0, sent: 1, ended: false });
  t.true(first.length > 0);
  t.deepEqual(await charges(), []);
  for (let release = 0; release < 3; release++) await gate(2, 'POST');
  const mp3 = await readUntil(reader, received, () => false);
  t.true(Math.abs(readMp3Info(mp3)!.seconds - input.length / 15) < 0.1);
  t.true(first.length < mp3.length, 'the first bytes came before the rest');
  t.deepEqual((await charges()).map((row) => -BigInt(row.amount_units)), [price]);
  t.is((await balance()).heldUnits, 0n);
});

testOnBackends('ElevenLabs streamed speech: a client leaving after the first piece is charged the whole price, once the upstream ended', async (t, database) => {
  const { openai, charges, balance, gate } = await setup(t, database);
  const input = 'Heard in part, charged in full. [[sim:gate=3]]';
  const price = BigInt([...input].length) * 90n;
  const controller = new AbortController();
  const response = await openai.audio.speech.create({ model: 'elevenlabs/multilingual-v2', voice: 'alloy', input, stream_format: 'sse' } as any, { signal: controller.signal });
  const reader = response.body!.getReader();
  await readUntil(reader, [], (bytes) => bytes.length > 0);
  controller.abort();
  await reader.cancel().catch(() => {});
  t.deepEqual(await charges(), []);
  // The gateway reads the upstream on to its end (ElevenLabs bills the characters either way).
  for (let release = 0; release < 3; release++) await gate(3, 'POST');
  await eventually(async () => (await balance()).heldUnits === 0n || undefined, { what: 'the hold settled' });
  t.like(await gate(3), { sent: 4, ended: true });
  t.deepEqual((await charges()).map((row) => -BigInt(row.amount_units)), [price]);
  await assertLedgerInvariants(t, database.db);
});
