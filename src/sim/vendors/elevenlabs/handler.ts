// ElevenLabs under the prefix `elevenlabs`:
//   POST /v1/text-to-speech/{voice_id}[/stream]?output_format=codec_rate[_bitrate]
//        `xi-api-key` required; JSON {text, model_id, voice_settings: {speed 0.7–1.2}} → silence
//        lasting max(1, characters / 15) / speed seconds, as the OpenAI speech simulator: mp3_*
//        MPEG-1 Layer III (44.1 kHz, whatever the name says), pcm_R raw s16le at R Hz, wav_R,
//        opus_48000_* Ogg Opus, ulaw_8000 / alaw_8000 8-bit silence. A voice id must look like
//        one (20 letters and digits), else 404 voice_not_found.
//        With /stream the same audio comes chunked in pieces, paced by a gate when asked (stream.ts).
//   POST /v1/speech-to-text  multipart {model_id (scribe_v1…), file, language_code} → {language_code,
//        language_probability, text, words}: the text says how long the audio is (measured from
//        the WAV/MP3 itself), its words timed evenly over it, with the spacing entries Scribe gives.
// Errors in ElevenLabs' shape: {"detail": {"status": "…", "message": "…"}}; FastAPI's 422 list
// for a body it cannot read. Magic strings: [[sim:status=N]], [[sim:retry-after=S]],
// [[sim:ttfb=MS]], [[sim:drop]] in the text (speech) or the file name (speech to text).
import { setTimeout as sleep } from 'node:timers/promises';
import { parseFaults, stripMagic } from '../../faults.js';
import { measureAudio, speechSeconds } from '../../media/audio.js';
import { silentMp3 } from '../../media/mp3.js';
import { multipartBoundary, MultipartError, parseMultipart } from '../../media/multipart.js';
import { silentOggOpus } from '../../media/ogg-opus.js';
import { silentPcm, silentWav } from '../../media/wav.js';
import type { VendorSimRequest } from '../routes.js';
import { answerBytes, answerJson, BodyTooLarge, readRequestBody } from '../bfl/http.js';
import { answerStream, gateAnswer, gateIdOf } from './stream.js';

const scribeModels = new Set(['scribe_v1', 'scribe_v1_experimental', 'scribe_v2']);
const maxTextCharacters = 10_000;

class ElevenLabsError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export async function handleElevenLabs(sim: VendorSimRequest): Promise<void> {
  const { request, response, path } = sim;
  try {
    const gate = gateAnswer(sim.cache, request.method, path);
    if (gate) return answerJson(response, 200, gate);
    if (!request.headers['xi-api-key']) throw new ElevenLabsError(401, 'needs_authorization', 'Neither authorization header nor xi-api-key received, please provide one.');
    if (request.method !== 'POST') throw new ElevenLabsError(405, 'method_not_allowed', `${path} accepts POST only`);
    const speech = /^\/v1\/text-to-speech\/([^/]+)(\/stream)?$/.exec(path);
    if (speech) return await textToSpeech(sim, decodeURIComponent(speech[1]!), speech[2] !== undefined);
    if (path === '/v1/speech-to-text') return await speechToText(sim);
    throw new ElevenLabsError(404, 'not_found', `no route for ${path}`);
  } catch (caught) {
    if (caught instanceof BodyTooLarge) return answerJson(response, 413, { detail: { status: 'payload_too_large', message: 'The request body is too large.' } });
    if (caught instanceof ValidationProblem) return answerJson(response, 422, { detail: [{ type: caught.type, loc: ['body', caught.field], msg: caught.message, input: caught.input }] });
    const error = caught instanceof ElevenLabsError ? caught : new ElevenLabsError(500, 'internal_error', `simulator failure: ${(caught as Error).message}`);
    answerJson(response, error.status, { detail: { status: error.code, message: error.message } }, error.headers);
  }
}

class ValidationProblem extends Error {
  constructor(
    readonly field: string,
    message: string,
    readonly input: unknown,
    readonly type = 'value_error',
  ) {
    super(message);
  }
}

/** The fault a magic string asked for, in ElevenLabs' words; true when the answer is to be sent. */
async function applyFaults(sim: VendorSimRequest, text: string): Promise<boolean> {
  const faults = parseFaults(text);
  if (faults.ttfbMs > 0) await sleep(faults.ttfbMs);
  if (faults.drop) {
    sim.response.socket?.destroy();
    return false;
  }
  if (faults.status === 429) throw new ElevenLabsError(429, 'too_many_concurrent_requests', 'Simulated: too many concurrent requests for your plan.', { 'retry-after': String(faults.retryAfterSeconds) });
  if (faults.status === 401) throw new ElevenLabsError(401, 'quota_exceeded', 'Simulated: this request exceeds your quota of 10000 characters.');
  if (faults.status !== undefined) throw new ElevenLabsError(faults.status, faults.status >= 500 ? 'internal_error' : 'invalid_request', `Simulated error ${faults.status}`);
  return true;
}

/** `codec_rate[_bitrate]` → the silent audio of `seconds` and its content type; undefined when unknown. */
function encode(outputFormat: string, seconds: number): { bytes: Buffer; contentType: string } | undefined {
  const match = /^(mp3|pcm|wav|opus|ulaw|alaw)_(\d+)(?:_(\d+))?$/.exec(outputFormat);
  if (!match) return undefined;
  const rate = Number(match[2]);
  switch (match[1]) {
    case 'mp3':
      return [22050, 24000, 44100].includes(rate) ? { bytes: silentMp3(seconds), contentType: 'audio/mpeg' } : undefined;
    case 'pcm':
      return [8000, 16000, 22050, 24000, 32000, 44100, 48000].includes(rate) ? { bytes: silentPcm(seconds, rate), contentType: 'audio/pcm' } : undefined;
    case 'wav':
      return [8000, 16000, 22050, 24000, 32000, 44100, 48000].includes(rate) ? { bytes: silentWav(seconds, rate), contentType: 'audio/wav' } : undefined;
    case 'opus':
      return rate === 48000 ? { bytes: silentOggOpus(seconds, 48000), contentType: 'audio/opus' } : undefined;
    case 'ulaw':
    case 'alaw':
      return rate === 8000 ? { bytes: Buffer.alloc(Math.round(seconds * 8000), match[1] === 'ulaw' ? 0xff : 0xd5), contentType: 'audio/basic' } : undefined;
  }
  return undefined;
}

async function textToSpeech(sim: VendorSimRequest, voiceId: string, streamed: boolean): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse((await readRequestBody(sim.request)).toString('utf8'));
  } catch (error) {
    if (error instanceof BodyTooLarge) throw error;
    throw new ValidationProblem('0', 'JSON decode error', {}, 'json_invalid');
  }
  if (typeof body !== 'object' || body === null) throw new ValidationProblem('text', 'Field required', body, 'missing');
  const fields = body as Record<string, unknown>;
  if (typeof fields.text !== 'string') throw new ValidationProblem('text', 'Field required', fields.text, 'missing');
  const text = fields.text;
  if (text.trim() === '') throw new ElevenLabsError(400, 'empty_text', 'The text must not be empty.');
  if (text.length > maxTextCharacters) throw new ElevenLabsError(400, 'max_character_limit_exceeded', `The text holds ${text.length} characters; the model takes at most ${maxTextCharacters}.`);
  const settings = fields.voice_settings;
  const speed = typeof settings === 'object' && settings !== null ? (settings as Record<string, unknown>).speed : undefined;
  if (speed !== undefined && (typeof speed !== 'number' || speed < 0.7 || speed > 1.2)) throw new ValidationProblem('voice_settings', 'speed must be between 0.7 and 1.2', speed);
  if (!/^[A-Za-z0-9]{20}$/.test(voiceId)) throw new ElevenLabsError(404, 'voice_not_found', `A voice with the voice_id ${voiceId} was not found.`);
  const outputFormat = sim.query.get('output_format') ?? 'mp3_44100_128';
  const seconds = speechSeconds(text, typeof speed === 'number' ? speed : 1);
  const audio = encode(outputFormat, seconds);
  if (!audio) throw new ElevenLabsError(400, 'invalid_output_format', `Invalid output format: ${outputFormat}.`);
  if (!(await applyFaults(sim, text))) return;
  const headers = { 'character-cost': String([...stripMagic(text)].length), 'request-id': `sim-${voiceId.slice(0, 6)}` };
  if (streamed) return answerStream(sim.cache, sim.response, audio.bytes, audio.contentType, headers, gateIdOf(text));
  answerBytes(sim.response, 200, audio.bytes, audio.contentType, headers);
}

async function speechToText(sim: VendorSimRequest): Promise<void> {
  const boundary = multipartBoundary(sim.request.headers['content-type']);
  if (!boundary) throw new ValidationProblem('file', 'expected a multipart/form-data body', null, 'missing');
  let parts;
  try {
    parts = parseMultipart(await readRequestBody(sim.request), boundary);
  } catch (error) {
    if (error instanceof MultipartError) throw new ValidationProblem('file', `invalid multipart body: ${error.message}`, null);
    throw error;
  }
  const field = (name: string) => parts.find((part) => part.name === name && part.filename === undefined)?.data.toString('utf8');
  const model = field('model_id');
  if (model === undefined) throw new ValidationProblem('model_id', 'Field required', null, 'missing');
  if (!scribeModels.has(model)) throw new ElevenLabsError(400, 'invalid_model', `The model ${model} does not do speech to text.`);
  const file = parts.find((part) => part.name === 'file');
  if (!file) throw new ElevenLabsError(400, 'missing_file', 'Either a file or a cloud_storage_url must be given.');
  const audio = measureAudio(file.data);
  if (!audio) throw new ElevenLabsError(400, 'invalid_audio', 'The audio file could not be decoded (the simulator reads WAV and MP3).');
  if (!(await applyFaults(sim, file.filename ?? ''))) return;
  const text = `Simulated transcript of ${audio.seconds.toFixed(1)} seconds of audio. The file was ${stripMagic(file.filename ?? 'audio')}.`;
  answerJson(sim.response, 200, {
    language_code: field('language_code') ?? 'eng',
    language_probability: 0.98,
    text,
    words: timedWords(text, audio.seconds),
  });
}

/** The text's words, timed evenly over the audio, with a spacing entry between each two (as Scribe answers). */
function timedWords(text: string, seconds: number): unknown[] {
  const words = text.split(' ');
  const step = seconds / words.length;
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return words.flatMap((word, index) => {
    const start = round(index * step);
    const end = round((index + 1) * step);
    const entry = { text: word, start, end, type: 'word', speaker_id: 'speaker_0', logprob: 0 };
    return index === words.length - 1 ? [entry] : [entry, { text: ' ', start: end, end, type: 'spacing', speaker_id: 'speaker_0', logprob: 0 }];
  });
}
