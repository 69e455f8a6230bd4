// The simulator's OpenAI media endpoints through the official openai SDK over real HTTP:
// images (generations and multipart edits, real PNGs of the right size), speech (real MP3 /
// WAV bytes of the right length), transcriptions of that audio, embeddings (the SDK's default
// base64 and explicit float), their validation errors and magic strings.
import test from 'ava';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { readMp3Info } from '../../src/sim/media/mp3.js';
import { patternPng, pngChunks, readPngSize } from '../../src/sim/media/png.js';
import { readWavInfo } from '../../src/sim/media/wav.js';
import { countTokens } from '../../src/sim/tokens.js';
import { jpegSkeleton, postForm } from './media-fixtures.js';
import { startTestSimulator } from './simulator.js';

const pngBytes = (b64: string | undefined) => Buffer.from(b64!, 'base64');

test('images.generate: n=2 gives two different real PNGs of the requested size, with gpt-image usage', async (t) => {
  const { openai } = await startTestSimulator(t);
  const result = await openai.images.generate({ model: 'gpt-image-1', prompt: 'a red lighthouse', n: 2, size: '1536x1024', quality: 'medium' });
  t.is(result.data!.length, 2);
  for (const image of result.data!) {
    const png = pngBytes(image.b64_json);
    t.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    t.deepEqual(pngChunks(png).map((chunk) => chunk.type), ['IHDR', 'IDAT', 'IEND']);
    t.deepEqual(readPngSize(png), { width: 1536, height: 1024 });
    t.is(image.revised_prompt as unknown, null);
  }
  t.not(result.data![0]!.b64_json, result.data![1]!.b64_json);
  const textTokens = countTokens('a red lighthouse');
  t.like(result, {
    background: 'opaque',
    output_format: 'png',
    quality: 'medium',
    size: '1536x1024',
    usage: {
      input_tokens: textTokens,
      input_tokens_details: { text_tokens: textTokens, image_tokens: 0 },
      output_tokens: 2 * 1584,
      output_tokens_details: { text_tokens: 0, image_tokens: 2 * 1584 },
      total_tokens: textTokens + 2 * 1584,
    },
  });
  // Deterministic: the same prompt draws the same images; auto is 1024x1024, quality high.
  const again = await openai.images.generate({ prompt: 'a red lighthouse', size: 'auto', background: 'transparent' });
  t.deepEqual(readPngSize(pngBytes(again.data![0]!.b64_json)), { width: 1024, height: 1024 });
  t.like(again, { quality: 'high', background: 'transparent', usage: { output_tokens: 4160 } });
  t.is(pngChunks(pngBytes(again.data![0]!.b64_json))[0]!.data[9], 6, 'RGBA for a transparent background');
});

test('images.generate: validation (url, n, size, transparent jpeg) and magic strings', async (t) => {
  const { openai } = await startTestSimulator(t);
  const url = await t.throwsAsync(openai.images.generate({ prompt: 'x', response_format: 'url' }), { instanceOf: OpenAI.BadRequestError });
  t.is((url as InstanceType<typeof OpenAI.BadRequestError>).param, 'response_format');
  await t.throwsAsync(openai.images.generate({ prompt: 'x', n: 11 }), { instanceOf: OpenAI.BadRequestError, message: /n: expected an integer from 1 to 10/ });
  await t.throwsAsync(openai.images.generate({ prompt: 'x', size: 'big' as '1024x1024' }), { instanceOf: OpenAI.BadRequestError, message: /size/ });
  await t.throwsAsync(openai.images.generate({ prompt: 'x', background: 'transparent', output_format: 'jpeg' }), { instanceOf: OpenAI.BadRequestError });
  await t.throwsAsync(openai.images.generate({ prompt: '' }), { instanceOf: OpenAI.BadRequestError });
  await t.throwsAsync(openai.images.generate({ prompt: 'x [[sim:status=503]]' }), { instanceOf: OpenAI.InternalServerError, message: /503/ });
  await t.throwsAsync(openai.images.generate({ prompt: 'x [[sim:status=429]]' }), { instanceOf: OpenAI.RateLimitError });
  await t.throwsAsync(openai.images.generate({ prompt: 'x [[sim:drop]]' }), { instanceOf: OpenAI.APIConnectionError });
  // jpeg and webp are those bytes, of the asked size.
  for (const format of ['jpeg', 'webp'] as const) {
    const image = await openai.images.generate({ prompt: 'x', size: '64x32', output_format: format });
    t.is(image.output_format, format);
    const { format: decoded, width, height } = await sharp(Buffer.from(image.data![0]!.b64_json!, 'base64')).metadata();
    t.deepEqual({ decoded, width, height }, { decoded: format, width: 64, height: 32 });
  }
});

test('images.edit: two reference files as image[] (PNG + JPEG); size defaults to the first reference', async (t) => {
  const { openai, url } = await startTestSimulator(t);
  const first = await toFile(patternPng(320, 240, 'reference one'), 'one.png', { type: 'image/png' });
  const second = await toFile(jpegSkeleton(100, 50), 'two.jpg', { type: 'image/jpeg' });
  const edited = await openai.images.edit({ model: 'gpt-image-1', prompt: 'put them together', image: [first, second], n: 2 });
  t.is(edited.data!.length, 2);
  for (const image of edited.data!) t.deepEqual(readPngSize(pngBytes(image.b64_json)), { width: 320, height: 240 });
  t.not(edited.data![0]!.b64_json, edited.data![1]!.b64_json);
  const textTokens = countTokens('put them together');
  t.like(edited, { size: '320x240', usage: { input_tokens: textTokens + 2 * 85, input_tokens_details: { text_tokens: textTokens, image_tokens: 170 } } });

  // One file (part "image"), an explicit size and a matching mask.
  const sized = await openai.images.edit({
    prompt: 'one',
    image: await toFile(patternPng(320, 240, 'reference one'), 'one.png', { type: 'image/png' }),
    mask: await toFile(patternPng(320, 240, 'mask', { transparent: true }), 'mask.png', { type: 'image/png' }),
    size: '1024x1536',
  });
  t.deepEqual(readPngSize(pngBytes(sized.data![0]!.b64_json)), { width: 1024, height: 1536 });

  await t.throwsAsync(openai.images.edit({ prompt: 'x', image: await toFile(Buffer.from('GIF89a....'), 'a.gif', { type: 'image/gif' }) }), {
    instanceOf: OpenAI.BadRequestError,
    message: /unsupported image/,
  });
  await t.throwsAsync(
    openai.images.edit({ prompt: 'x', image: await toFile(patternPng(8, 8, 'a'), 'a.png'), mask: await toFile(patternPng(4, 4, 'm'), 'm.png') }),
    { instanceOf: OpenAI.BadRequestError, message: /mask/ },
  );
  await t.throwsAsync(openai.images.edit({ prompt: 'x [[sim:status=500]]', image: await toFile(patternPng(8, 8, 'a'), 'a.png') }), { instanceOf: OpenAI.InternalServerError });
  // No image part at all: 400 in OpenAI's shape.
  const form = new FormData();
  form.append('prompt', 'x');
  const missing = await postForm(`${url}/v1/images/edits`, form);
  t.is(missing.status, 400);
  t.like(JSON.parse(missing.body.toString()), { error: { param: 'image', type: 'invalid_request_error', code: 'missing_required_parameter' } });
  const notMultipart = await fetch(`${url}/v1/images/edits`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"x"}' });
  t.is(notMultipart.status, 400);
});

test('audio.speech: a valid MP3 whose frames last max(1, chars/15) / speed seconds; wav and pcm too', async (t) => {
  const { openai } = await startTestSimulator(t);
  const input = 'Hello from the simulator, spoken out loud for a little while.'; // 61 chars → 4.07 s
  const speech = await openai.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input });
  t.is(speech.headers.get('content-type'), 'audio/mpeg');
  const mp3 = Buffer.from(await speech.arrayBuffer());
  t.is(mp3[0], 0xff);
  t.is(mp3[1]! & 0xe0, 0xe0, 'frame sync');
  const info = readMp3Info(mp3)!;
  t.is(info.sampleRate, 44100);
  t.true(Math.abs(info.seconds - input.length / 15) <= 1152 / 44100 / 2 + 1e-9, `${info.seconds} s`);

  const fast = readMp3Info(Buffer.from(await (await openai.audio.speech.create({ model: 'tts-1', voice: 'echo', input, speed: 2 })).arrayBuffer()))!;
  t.true(Math.abs(fast.seconds - input.length / 15 / 2) < 0.03);
  const short = readMp3Info(Buffer.from(await (await openai.audio.speech.create({ model: 'tts-1', voice: 'echo', input: 'Hi' })).arrayBuffer()))!;
  t.true(Math.abs(short.seconds - 1) < 0.03, 'at least one second');

  const wav = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: 'wav' });
  t.is(wav.headers.get('content-type'), 'audio/wav');
  t.like(readWavInfo(Buffer.from(await wav.arrayBuffer())), { sampleRate: 24000, channels: 1, bitsPerSample: 16 });
  const pcm = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'x'.repeat(30), response_format: 'pcm' });
  t.is(pcm.headers.get('content-type'), 'audio/pcm');
  t.is((await pcm.arrayBuffer()).byteLength, 2 * 24000 * 2);

  await t.throwsAsync(openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'x'.repeat(4097) }), { instanceOf: OpenAI.BadRequestError, message: /4096/ });
  // Issue 14 item 9: opus, aac and flac are produced too (speech-formats tests in test/e2e/wire-media.test.ts).
  const opus = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: 'opus' });
  t.is(opus.headers.get('content-type'), 'audio/opus');
  t.is(Buffer.from(await opus.arrayBuffer()).toString('latin1', 0, 4), 'OggS');
  await t.throwsAsync(openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, speed: 5 }), { instanceOf: OpenAI.BadRequestError, message: /speed/ });
  await t.throwsAsync(openai.audio.speech.create({ model: 'tts-1', input } as never), { instanceOf: OpenAI.BadRequestError, message: /voice/ });
  await t.throwsAsync(openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'x [[sim:status=500]]' }), { instanceOf: OpenAI.InternalServerError });
});

test('audio.transcriptions: the MP3 from speech is measured from its frames, WAV from its header, Ogg Opus from its granule; json, text, srt, vtt, verbose_json', async (t) => {
  const { openai } = await startTestSimulator(t);
  const input = 'x'.repeat(75); // 5 seconds
  const mp3 = Buffer.from(await (await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input })).arrayBuffer());
  const seconds = readMp3Info(mp3)!.seconds;
  const text = `Simulated transcript of ${seconds.toFixed(1)} seconds of audio.`;
  t.is(text, 'Simulated transcript of 5.0 seconds of audio.');

  const json = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(mp3, 'speech.mp3', { type: 'audio/mpeg' }) });
  t.deepEqual(json as unknown, { text, usage: { type: 'duration', seconds: Math.ceil(seconds) } });
  const plain = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(mp3, 'speech.mp3'), response_format: 'text', prompt: 'Names: Ada.' });
  t.is(plain as unknown, `${text} Prompt: Names: Ada.\n`);
  const srt = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(mp3, 'speech.mp3'), response_format: 'srt' });
  t.regex(srt as unknown as string, /^1\n00:00:00,000 --> 00:00:0\d,\d{3}\nSimulated transcript/);
  const vtt = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(mp3, 'speech.mp3'), response_format: 'vtt' });
  t.regex(vtt as unknown as string, /^WEBVTT\n\n00:00:00\.000 --> 00:00:0\d\.\d{3}\n/);
  const verbose = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(mp3, 'speech.mp3'), response_format: 'verbose_json', language: 'en' });
  t.like(verbose, { task: 'transcribe', language: 'en', text, segments: [{ id: 0, seek: 0, start: 0, text, no_speech_prob: 0 }] } as never);
  t.true(Math.abs(verbose.duration - seconds) < 0.001);

  // WAV is measured from its header.
  const wav = Buffer.from(await (await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'x'.repeat(45), response_format: 'wav' })).arrayBuffer());
  const fromWav = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(wav, 'a.wav'), response_format: 'text' });
  t.is(fromWav as unknown, 'Simulated transcript of 3.0 seconds of audio.\n');
  // Ogg Opus (a Telegram voice message) from its last granule less the pre-skip.
  const opus = Buffer.from(await (await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'x'.repeat(30), response_format: 'opus' })).arrayBuffer());
  const fromOpus = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(opus, 'voice.ogg'), response_format: 'text' });
  t.is(fromOpus as unknown, 'Simulated transcript of 2.0 seconds of audio.\n');

  await t.throwsAsync(openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(Buffer.from('not audio at all'), 'a.mp3') }), {
    instanceOf: OpenAI.BadRequestError,
    message: /could not decode audio/,
  });
  await t.throwsAsync(openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(mp3, 'a.mp3'), prompt: '[[sim:status=529]]' }), { instanceOf: OpenAI.InternalServerError });
});

test('embeddings: SDK default (base64) decodes to 1536 floats; float gives the same vector; dimensions and large models', async (t) => {
  const { openai } = await startTestSimulator(t);
  const base64 = await openai.embeddings.create({ model: 'text-embedding-3-small', input: ['first text', 'second text'] });
  t.is(base64.data.length, 2);
  t.deepEqual(base64.data.map((item) => item.index), [0, 1]);
  t.is(base64.data[0]!.embedding.length, 1536);
  const norm = Math.sqrt(base64.data[0]!.embedding.reduce((sum, x) => sum + x * x, 0));
  t.true(Math.abs(norm - 1) < 1e-5);
  t.notDeepEqual(base64.data[0]!.embedding, base64.data[1]!.embedding);
  t.deepEqual(base64.usage, { prompt_tokens: countTokens('first text') + countTokens('second text'), total_tokens: countTokens('first text') + countTokens('second text') });

  const floats = await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'first text', encoding_format: 'float' });
  t.is(floats.data[0]!.embedding.length, 1536);
  t.deepEqual(floats.data[0]!.embedding, base64.data[0]!.embedding, 'the same float32 numbers either way');
  t.is(floats.model, 'text-embedding-3-small');

  t.is((await openai.embeddings.create({ model: 'text-embedding-3-large', input: 'x' })).data[0]!.embedding.length, 3072);
  t.is((await openai.embeddings.create({ model: 'text-embedding-3-large', input: 'x', dimensions: 256 })).data[0]!.embedding.length, 256);
  const tokens = await openai.embeddings.create({ model: 'm', input: [[1, 2, 3], [4, 5]] });
  t.deepEqual(tokens.usage, { prompt_tokens: 5, total_tokens: 5 });
  t.is((await openai.embeddings.create({ model: 'm', input: [7, 8, 9, 10] })).usage.prompt_tokens, 4);

  await t.throwsAsync(openai.embeddings.create({ model: 'm', input: '' }), { instanceOf: OpenAI.BadRequestError });
  await t.throwsAsync(openai.embeddings.create({ model: 'm', input: [] }), { instanceOf: OpenAI.BadRequestError });
  await t.throwsAsync(openai.embeddings.create({ model: 'm', input: Array.from({ length: 2049 }, () => 'x') }), { instanceOf: OpenAI.BadRequestError, message: /2048/ });
  await t.throwsAsync(openai.embeddings.create({ model: 'm', input: 'x', dimensions: 2000 }), { instanceOf: OpenAI.BadRequestError, message: /dimensions/ });
  await t.throwsAsync(openai.embeddings.create({ model: 'm', input: 'x [[sim:status=503]]' }), { instanceOf: OpenAI.InternalServerError });
});

test('images stream: partial_images previews (the pattern drawn smaller, in the asked format) then the completed image with usage; n=2 repeats it per image; fail-mid is an error event', async (t) => {
  const { openai } = await startTestSimulator(t);
  const body = { model: 'gpt-image-1', prompt: 'a streamed lighthouse', size: '1536x1024' as const, quality: 'low' as const };
  const plain = await openai.images.generate(body);
  const events: any[] = [];
  for await (const event of await openai.images.generate({ ...body, stream: true, partial_images: 3 })) events.push(event);
  t.deepEqual(
    events.map((event) => [event.type, event.partial_image_index]),
    [
      ['image_generation.partial_image', 0],
      ['image_generation.partial_image', 1],
      ['image_generation.partial_image', 2],
      ['image_generation.completed', undefined],
    ],
  );
  t.deepEqual(
    events.map((event) => readPngSize(pngBytes(event.b64_json))),
    [
      { width: 384, height: 256 },
      { width: 768, height: 512 },
      { width: 1152, height: 768 },
      { width: 1536, height: 1024 },
    ],
  );
  t.is(events[3].b64_json, plain.data![0]!.b64_json, 'the completed image is the plain answer\'s');
  for (const event of events) t.like(event, { background: 'opaque', output_format: 'png', quality: 'low', size: '1536x1024' });
  t.deepEqual(events[3].usage, plain.usage);

  const edits: any[] = [];
  const reference = await toFile(patternPng(64, 64, 'reference'), 'reference.png', { type: 'image/png' });
  for await (const event of await openai.images.edit({ model: 'gpt-image-1', prompt: 'at night', image: reference, n: 2, size: '1024x1024', output_format: 'jpeg', stream: true, partial_images: 1 })) edits.push(event);
  t.deepEqual(edits.map((event) => event.type), ['image_edit.partial_image', 'image_edit.completed', 'image_edit.partial_image', 'image_edit.completed']);
  for (const event of edits) t.is((await sharp(pngBytes(event.b64_json)).metadata()).format, 'jpeg');
  t.is(edits[1].usage.input_tokens_details.image_tokens > 0, true, 'the first image carries the input');
  t.is(edits[3].usage.input_tokens, 0, 'the second only its own output');

  const seen: string[] = [];
  await t.throwsAsync(
    async () => {
      for await (const event of await openai.images.generate({ ...body, prompt: 'x [[sim:fail-mid]]', stream: true, partial_images: 2 })) seen.push(event.type);
    },
    { instanceOf: OpenAI.APIError, message: /Simulated failure in the middle of the stream/ },
  );
  t.deepEqual(seen, ['image_generation.partial_image'], 'after half the events');
});
