// ElevenLabs converters against the shapes of its published API reference: text to speech
// (voice id in the path, output_format in the query, xi-api-key), Scribe speech to text
// (multipart; {language_code, text, words}) in each response_format, and the error bodies
// ({"detail": {"status", "message"}}, FastAPI's 422 list). No network.
import test from 'ava';
import type { SpeechRequest, TranscriptionRequest } from '../../src/model/media.js';
import { parseElevenLabsError } from '../../src/vendors/elevenlabs/errors.js';
import { elevenLabsSpeechOperation, elevenLabsSpeechStreamOperation } from '../../src/vendors/elevenlabs/speech.js';
import { elevenLabsTranscriptionOperation } from '../../src/vendors/elevenlabs/transcriptions.js';
import type { MediaHttpResponse, MediaTarget } from '../../src/vendors/media-types.js';
import { UpstreamError } from '../../src/vendors/types.js';

const target: MediaTarget = { model: 'eleven_multilingual_v2', baseUrl: 'https://api.elevenlabs.io', apiKey: 'xi-key', settings: { voice_ids: { alloy: '21m00Tcm4TlvDq8ikWAM' } } };
const speech: SpeechRequest = { input: 'The first move is what sets everything in motion.', voice: 'JBFqnCBsd6RMkjVDRZzb', format: 'mp3' };

test('speech: POST /v1/text-to-speech/{voice_id}?output_format=…, xi-api-key, {text, model_id}', (t) => {
  t.deepEqual(elevenLabsSpeechOperation.build(speech, target), {
    url: 'https://api.elevenlabs.io/v1/text-to-speech/JBFqnCBsd6RMkjVDRZzb?output_format=mp3_44100_128',
    method: 'POST',
    headers: { 'xi-api-key': 'xi-key', accept: 'audio/*' },
    body: { json: { text: 'The first move is what sets everything in motion.', model_id: 'eleven_multilingual_v2' } },
  });
  const formats = (['opus', 'wav', 'pcm'] as const).map((format) => elevenLabsSpeechOperation.build({ ...speech, format }, target).url.split('?')[1]);
  t.deepEqual(formats, ['output_format=opus_48000_64', 'output_format=wav_24000', 'output_format=pcm_24000']);
  // A mapped name becomes its voice id; speed rides in voice_settings.
  const mapped = elevenLabsSpeechOperation.build({ ...speech, voice: 'alloy', speed: 1.1 }, target);
  t.is(mapped.url, 'https://api.elevenlabs.io/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM?output_format=mp3_44100_128');
  t.deepEqual(mapped.body, { json: { text: speech.input, model_id: 'eleven_multilingual_v2', voice_settings: { speed: 1.1 } } });
  t.is(elevenLabsSpeechOperation.build({ ...speech, voice: 'constructor' }, target).url.split('?')[0], 'https://api.elevenlabs.io/v1/text-to-speech/constructor', 'only the mapping\'s own names');
});

test('speech: flac, aac, speeds outside 0.7–1.2 and instructions are refused before anything is sent', (t) => {
  const cases: [Partial<SpeechRequest>, RegExp][] = [
    [{ format: 'flac' }, /cannot produce flac: ask for mp3, opus, wav, pcm/],
    [{ format: 'aac' }, /cannot produce aac/],
    [{ speed: 0.5 }, /speeds from 0.7 to 1.2, not 0.5/],
    [{ instructions: 'cheerful' }, /no instructions/],
  ];
  for (const [change, message] of cases) {
    const error = t.throws(() => elevenLabsSpeechOperation.build({ ...speech, ...change }, target), { instanceOf: UpstreamError }) as UpstreamError;
    t.regex(error.message, message);
    t.like(error, { status: 400, retryable: false });
  }
});

test('streamed speech: the same request to …/{voice_id}/stream; each chunk of the body is a piece of audio, none at all is an error', (t) => {
  t.is(elevenLabsSpeechStreamOperation.framing, 'bytes');
  const built = elevenLabsSpeechStreamOperation.build({ ...speech, voice: 'alloy', format: 'pcm' }, target);
  t.deepEqual(built, {
    url: 'https://api.elevenlabs.io/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM/stream?output_format=pcm_24000',
    method: 'POST',
    headers: { 'xi-api-key': 'xi-key', accept: 'audio/*' },
    body: { json: { text: speech.input, model_id: 'eleven_multilingual_v2' } },
  });
  t.throws(() => elevenLabsSpeechStreamOperation.build({ ...speech, format: 'flac' }, target), { message: /cannot produce flac/ });
  if (elevenLabsSpeechStreamOperation.framing !== 'bytes') return;
  const parser = elevenLabsSpeechStreamOperation.createParser(speech, target);
  t.deepEqual(parser.push(Uint8Array.of(1, 2)), [Uint8Array.of(1, 2)]);
  t.deepEqual(parser.push(new Uint8Array(0)), []);
  t.notThrows(() => parser.end());
  const silent = elevenLabsSpeechStreamOperation.createParser(speech, target);
  t.throws(() => silent.end(), { instanceOf: UpstreamError, message: /no audio/ });
});

test('speech: the answer is the audio; its type from the header, else from the format', async (t) => {
  const audio = Buffer.from([0xff, 0xfb, 0x90, 0x64]);
  t.deepEqual(await elevenLabsSpeechOperation.parse({ status: 200, headers: { 'content-type': 'audio/mpeg' }, body: audio }, speech, target), { audio, mediaType: 'audio/mpeg' });
  t.deepEqual(await elevenLabsSpeechOperation.parse({ status: 200, headers: {}, body: audio }, { ...speech, format: 'pcm' }, target), { audio, mediaType: 'audio/pcm' });
});

const transcription: TranscriptionRequest = { file: { data: Buffer.from('RIFF'), mediaType: 'audio/wav', filename: 'a.wav' }, responseFormat: 'json', language: 'en' };

/** Scribe's answer as its reference shows it: words with spacing entries between them. */
const scribeAnswer: MediaHttpResponse = {
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(
    JSON.stringify({
      language_code: 'en',
      language_probability: 0.98,
      text: 'Hello world! How are you?',
      words: [
        { text: 'Hello', start: 0, end: 0.5, type: 'word', speaker_id: 'speaker_1', logprob: -0.1 },
        { text: ' ', start: 0.5, end: 0.5, type: 'spacing', speaker_id: 'speaker_1' },
        { text: 'world!', start: 0.5, end: 1.2, type: 'word', speaker_id: 'speaker_1' },
        { text: '(laughs)', start: 1.2, end: 1.5, type: 'audio_event', speaker_id: 'speaker_1' },
        { text: 'How', start: 1.5, end: 1.75, type: 'word' },
        { text: 'are', start: 1.75, end: 2, type: 'word' },
        { text: 'you?', start: 2, end: 2.5, type: 'word' },
      ],
    }),
  ),
};

test('transcription: multipart POST /v1/speech-to-text with model_id, language_code, word timestamps and the file', async (t) => {
  const built = elevenLabsTranscriptionOperation.build({ ...transcription, temperature: 0.2 }, { ...target, model: 'scribe_v1' });
  t.is(built.url, 'https://api.elevenlabs.io/v1/speech-to-text');
  t.deepEqual(built.headers, { 'xi-api-key': 'xi-key', accept: 'application/json' });
  const form = (built.body as { form: FormData }).form;
  t.deepEqual([...form.keys()], ['model_id', 'language_code', 'temperature', 'timestamps_granularity', 'file']);
  t.deepEqual([form.get('model_id'), form.get('language_code'), form.get('temperature'), form.get('timestamps_granularity')], ['scribe_v1', 'en', '0.2', 'word']);
  t.is((form.get('file') as File).name, 'a.wav');
  t.like(t.throws(() => elevenLabsTranscriptionOperation.build({ ...transcription, prompt: 'x' }, target)) as UpstreamError, { status: 400, retryable: false });
});

test('transcription: json, text, verbose_json (words and sentence segments), srt and vtt from Scribe\'s answer', async (t) => {
  const as = (responseFormat: TranscriptionRequest['responseFormat']) => elevenLabsTranscriptionOperation.parse(scribeAnswer, { ...transcription, responseFormat }, target);
  t.deepEqual(await as('json'), { body: { text: 'Hello world! How are you?' }, text: 'Hello world! How are you?', contentType: 'application/json' });
  t.deepEqual(await as('text'), { body: 'Hello world! How are you?\n', text: 'Hello world! How are you?', contentType: 'text/plain; charset=utf-8' });
  t.deepEqual((await as('verbose_json')).body, {
    task: 'transcribe',
    language: 'en',
    duration: 2.5,
    text: 'Hello world! How are you?',
    words: [
      { word: 'Hello', start: 0, end: 0.5 },
      { word: 'world!', start: 0.5, end: 1.2 },
      { word: 'How', start: 1.5, end: 1.75 },
      { word: 'are', start: 1.75, end: 2 },
      { word: 'you?', start: 2, end: 2.5 },
    ],
    segments: [
      { id: 0, start: 0, end: 1.2, text: 'Hello world!' },
      { id: 1, start: 1.5, end: 2.5, text: 'How are you?' },
    ],
  });
  t.is((await as('srt')).body, '1\n00:00:00,000 --> 00:00:01,200\nHello world!\n\n2\n00:00:01,500 --> 00:00:02,500\nHow are you?\n');
  t.is((await as('vtt')).body, 'WEBVTT\n\n00:00:00.000 --> 00:00:01.200\nHello world!\n\n00:00:01.500 --> 00:00:02.500\nHow are you?\n');
  const noText: MediaHttpResponse = { status: 200, headers: {}, body: Buffer.from('{"detail": "x"}') };
  t.like(t.throws(() => elevenLabsTranscriptionOperation.parse(noText, transcription, target)) as UpstreamError, { upstreamType: 'invalid_response' });
});

test('errors: detail.status is the type; quota_exceeded is the account\'s credits (402), busy statuses are retryable', (t) => {
  t.like(parseElevenLabsError(404, JSON.stringify({ detail: { status: 'voice_not_found', message: 'A voice with the voice_id alloy was not found.' } })), {
    status: 404,
    retryable: false,
    upstreamType: 'voice_not_found',
    message: 'ElevenLabs: A voice with the voice_id alloy was not found.',
  });
  t.like(parseElevenLabsError(401, JSON.stringify({ detail: { status: 'quota_exceeded', message: 'This request exceeds your quota of 10000.' } })), { status: 402, retryable: false, upstreamType: 'quota_exceeded' });
  t.like(parseElevenLabsError(401, JSON.stringify({ detail: { status: 'invalid_api_key', message: 'Invalid API key' } })), { status: 401, retryable: false });
  t.like(parseElevenLabsError(429, JSON.stringify({ detail: { status: 'too_many_concurrent_requests', message: 'Too many concurrent requests.' } })), { status: 429, retryable: true });
  t.like(parseElevenLabsError(400, JSON.stringify({ detail: { status: 'system_busy', message: 'The system is busy.' } })), { retryable: true });
  t.like(parseElevenLabsError(422, JSON.stringify({ detail: [{ loc: ['body', 'text'], msg: 'Field required', type: 'missing' }] })), {
    status: 422,
    retryable: false,
    upstreamType: 'validation_error',
    message: 'ElevenLabs: text: Field required',
  });
  t.like(parseElevenLabsError(500, 'upstream connect error'), { status: 500, retryable: true, message: 'upstream connect error' });
});
