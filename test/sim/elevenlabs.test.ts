// The simulated ElevenLabs API (prefix /elevenlabs) on its own wire: every output_format family,
// voice ids, Scribe's words, and errors as {"detail": {"status", "message"}}.
import test from 'ava';
import { readMp3Info } from '../../src/sim/media/mp3.js';
import { readWavInfo, silentWav } from '../../src/sim/media/wav.js';
import { startSimulator } from '../../src/sim/server.js';

const voice = 'JBFqnCBsd6RMkjVDRZzb';

async function simulator(t: import('ava').ExecutionContext) {
  const sim = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => sim.close());
  const speak = (query: string, body: unknown, voiceId = voice) =>
    fetch(`${sim.url}/elevenlabs/v1/text-to-speech/${voiceId}${query}`, { method: 'POST', headers: { 'content-type': 'application/json', 'xi-api-key': 'k' }, body: JSON.stringify(body) });
  return { sim, speak };
}

test('speech: mp3 by default, pcm/wav at the named rate, opus, ulaw; the length from the text and speed', async (t) => {
  const { speak } = await simulator(t);
  const text = 'x'.repeat(150); // 10 s at speed 1
  const mp3 = await speak('', { text, model_id: 'eleven_multilingual_v2' });
  t.is(mp3.headers.get('content-type'), 'audio/mpeg');
  t.true(Math.abs(readMp3Info(Buffer.from(await mp3.arrayBuffer()))!.seconds - 10) < 0.05);
  t.is((await (await speak('?output_format=pcm_16000', { text })).arrayBuffer()).byteLength, 2 * 16_000 * 10);
  t.like(readWavInfo(Buffer.from(await (await speak('?output_format=wav_44100', { text, voice_settings: { speed: 1.2 } })).arrayBuffer())), { sampleRate: 44_100 });
  t.is(Buffer.from(await (await speak('?output_format=opus_48000_64', { text })).arrayBuffer()).subarray(0, 4).toString('latin1'), 'OggS');
  t.is((await (await speak('?output_format=ulaw_8000', { text })).arrayBuffer()).byteLength, 80_000);
  t.is((await speak('/stream?output_format=mp3_44100_128', { text })).status, 200);
});

test('speech errors: no key 401, unknown voice 404, bad format 400, speed 422, quota as 401 quota_exceeded', async (t) => {
  const { sim, speak } = await simulator(t);
  const noKey = await fetch(`${sim.url}/elevenlabs/v1/text-to-speech/${voice}`, { method: 'POST', body: '{}' });
  t.is(noKey.status, 401);
  t.like(((await noKey.json()) as any).detail, { status: 'needs_authorization' });
  const unknown = await speak('', { text: 'x' }, 'alloy');
  t.is(unknown.status, 404);
  t.deepEqual(await unknown.json(), { detail: { status: 'voice_not_found', message: 'A voice with the voice_id alloy was not found.' } });
  t.like(((await (await speak('?output_format=flac_44100', { text: 'x' })).json()) as any).detail, { status: 'invalid_output_format' });
  const speed = await speak('', { text: 'x', voice_settings: { speed: 2 } });
  t.is(speed.status, 422);
  t.deepEqual(((await speed.json()) as any).detail[0].loc, ['body', 'voice_settings']);
  const quota = await speak('', { text: 'x [[sim:status=401]]' });
  t.like(((await quota.json()) as any).detail, { status: 'quota_exceeded' });
});

test('speech to text: words timed over the measured audio, spacing between them; model and file checked', async (t) => {
  const { sim } = await simulator(t);
  const form = (model: string | undefined, file?: Uint8Array) => {
    const body = new FormData();
    if (model) body.append('model_id', model);
    if (file) body.append('file', new Blob([file as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'call.wav');
    return fetch(`${sim.url}/elevenlabs/v1/speech-to-text`, { method: 'POST', headers: { 'xi-api-key': 'k' }, body });
  };
  const answer = (await (await form('scribe_v1', silentWav(4))).json()) as any;
  t.is(answer.text, 'Simulated transcript of 4.0 seconds of audio. The file was call.wav.');
  t.is(answer.language_code, 'eng');
  t.is(answer.words.filter((word: any) => word.type === 'word').length, 11);
  t.like(answer.words[1], { text: ' ', type: 'spacing' });
  t.is(answer.words.at(-1).end, 4);
  t.is((await form(undefined, silentWav(1))).status, 422);
  t.like(((await (await form('eleven_multilingual_v2', silentWav(1))).json()) as any).detail, { status: 'invalid_model' });
  t.like(((await (await form('scribe_v1', Buffer.from('noise'))).json()) as any).detail, { status: 'invalid_audio' });
});
