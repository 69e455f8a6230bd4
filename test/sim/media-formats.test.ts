// The simulator's hand-written media codecs, without HTTP: PNG (encoded bytes inflate back to
// the rows, CRCs check), the JPEG size reader, MP3 frames (sync, 417/418-byte padding pattern,
// duration, ID3v2/Xing handling), WAV, and the multipart parser against undici's own encoder.
import test from 'ava';
import { inflateSync } from 'node:zlib';
import { multipartBoundary, parseMultipart, formFields } from '../../src/sim/media/multipart.js';
import { mp3FramesFor, readMp3Info, readMpegFrameHeader, silentMp3, skipId3v2 } from '../../src/sim/media/mp3.js';
import { crc32, encodePng, patternPng, pngChunks, readImageSize, readJpegSize, readPngSize } from '../../src/sim/media/png.js';
import { readWavInfo, silentPcm, silentWav, wavHeader } from '../../src/sim/media/wav.js';
import { jpegSkeleton } from './media-fixtures.js';

test('crc32 is the PNG/zip CRC', (t) => {
  t.is(crc32(Buffer.from('123456789')), 0xcbf43926);
  t.is(crc32(Buffer.alloc(0)), 0);
});

test('encodePng writes a PNG whose IDAT inflates back to the rows, filter byte 0 on each', (t) => {
  const rows = [Buffer.from([1, 2, 3, 4, 5, 6]), Buffer.from([7, 8, 9, 10, 11, 12]), Buffer.from([13, 14, 15, 16, 17, 18])];
  const png = encodePng({ width: 2, height: 3, channels: 3, row: (y) => rows[y]! });
  const chunks = pngChunks(png);
  t.deepEqual(chunks.map((chunk) => chunk.type), ['IHDR', 'IDAT', 'IEND']);
  t.deepEqual([...chunks[0]!.data], [0, 0, 0, 2, 0, 0, 0, 3, 8, 2, 0, 0, 0]);
  t.deepEqual(inflateSync(chunks[1]!.data), Buffer.concat(rows.flatMap((row) => [Buffer.from([0]), row])));
  t.deepEqual(readPngSize(png), { width: 2, height: 3 });
  const corrupted = Buffer.from(png);
  corrupted[20] ^= 1;
  t.throws(() => pngChunks(corrupted), { message: /bad CRC/ });
});

test('patternPng: exact size, deterministic per seed, RGBA when transparent', (t) => {
  const png = patternPng(300, 200, 'a cat\u00000');
  t.deepEqual(readImageSize(png), { format: 'png', mediaType: 'image/png', width: 300, height: 200 });
  t.deepEqual(png, patternPng(300, 200, 'a cat\u00000'));
  t.notDeepEqual(png, patternPng(300, 200, 'a cat\u00001'));
  const raw = inflateSync(pngChunks(png).find((chunk) => chunk.type === 'IDAT')!.data);
  t.is(raw.length, 200 * (1 + 300 * 3));
  const rgba = pngChunks(patternPng(5, 7, 'x', { transparent: true }));
  t.is(rgba[0]!.data[9], 6);
  t.is(inflateSync(rgba[1]!.data).length, 7 * (1 + 5 * 4));
  t.deepEqual(readPngSize(patternPng(1, 1, 'tiny')), { width: 1, height: 1 });
});

test('readJpegSize reads the SOF marker; other bytes are not images', (t) => {
  t.deepEqual(readJpegSize(jpegSkeleton(640, 480)), { width: 640, height: 480 });
  t.deepEqual(readImageSize(jpegSkeleton(33, 17)), { format: 'jpeg', mediaType: 'image/jpeg', width: 33, height: 17 });
  t.is(readImageSize(Buffer.from('GIF89a\u0001\u0000\u0001\u0000')), undefined);
  t.is(readImageSize(Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ')), undefined);
  t.is(readImageSize(Buffer.alloc(0)), undefined);
});

test('silentMp3: MPEG-1 Layer III 128 kbit/s 44.1 kHz frames of 417/418 bytes, measured back exactly', (t) => {
  const mp3 = silentMp3(3);
  const frames = mp3FramesFor(3);
  t.is(frames, Math.round((3 * 44100) / 1152));
  t.deepEqual([...mp3.subarray(0, 4)], [0xff, 0xfb, 0x90, 0xc4]);
  const lengths: number[] = [];
  for (let at = 0; at < mp3.length; ) {
    const header = readMpegFrameHeader(mp3, at)!;
    t.like(header, { version: 1, layer: 3, bitrate: 128000, sampleRate: 44100, channels: 1, samples: 1152 });
    lengths.push(header.length);
    at += header.length;
  }
  t.is(lengths.length, frames);
  t.deepEqual(lengths.slice(0, 4), [417, 418, 418, 418]);
  t.true(lengths.every((length) => length === 417 || length === 418));
  // The average frame is 144 * 128000 / 44100 bytes, to within one byte over the stream.
  t.true(Math.abs(mp3.length - (frames * 144 * 128000) / 44100) < 1);
  const info = readMp3Info(mp3)!;
  t.is(info.frames, frames);
  t.is(info.seconds, (frames * 1152) / 44100);
  t.true(Math.abs(info.seconds - 3) < 1152 / 44100);
  t.like(readMp3Info(silentMp3(1, { channels: 2 })), { channels: 2, frames: 38 });
  t.is(readMp3Info(silentMp3(0))!.frames, 1, 'at least one frame');
});

test('readMp3Info skips an ID3v2 tag and a Xing header frame; junk and WAV are not MP3', (t) => {
  const tag = Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 1, 0]), Buffer.alloc(128)]); // 128-byte tag body (syncsafe 0x0100)
  const mp3 = silentMp3(2);
  t.is(skipId3v2(Buffer.concat([tag, mp3])), 138);
  t.is(readMp3Info(Buffer.concat([tag, mp3]))!.frames, readMp3Info(mp3)!.frames);
  const xing = Buffer.from(silentMp3(0).subarray(0, 417));
  xing.write('Xing', 4 + 17, 'latin1');
  t.is(readMp3Info(Buffer.concat([xing, mp3]))!.frames, readMp3Info(mp3)!.frames);
  t.is(readMp3Info(Buffer.from('hello, this is not audio at all')), undefined);
  t.is(readMp3Info(silentWav(1)), undefined);
});

test('WAV and PCM: 16-bit 24 kHz mono silence, duration read back from the header', (t) => {
  const wav = silentWav(2.5);
  t.is(wav.toString('latin1', 0, 4), 'RIFF');
  t.is(wav.length, 44 + 2.5 * 24000 * 2);
  t.deepEqual(readWavInfo(wav), { format: 1, sampleRate: 24000, channels: 1, bitsPerSample: 16, dataBytes: 120000, seconds: 2.5 });
  t.is(silentPcm(1).length, 48000);
  // Extra chunks are skipped; a streamed size (0xFFFFFFFF) counts the bytes present.
  const header = wavHeader(0xffffffff, 8000, 2, 16);
  const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([3, 0, 0, 0]), Buffer.from('abc\u0000')]);
  const streamed = Buffer.concat([header.subarray(0, 36), list, header.subarray(36), Buffer.alloc(32000)]);
  t.like(readWavInfo(streamed), { sampleRate: 8000, channels: 2, seconds: 1 });
  t.is(readWavInfo(silentMp3(1)), undefined);
});

test('parseMultipart reads what undici FormData writes: fields, files, repeated names, binary data', async (t) => {
  const form = new FormData();
  form.append('prompt', 'a "quoted" prompt\r\nwith lines');
  form.append('n', '2');
  const binary = Buffer.from([0, 13, 10, 45, 45, 255, 0]);
  form.append('image[]', new Blob([binary], { type: 'image/png' }), 'first.png');
  form.append('image[]', new Blob([Buffer.from('second')], { type: 'image/jpeg' }), 'sécond.jpg');
  const request = new Request('http://x/', { method: 'POST', body: form });
  const boundary = multipartBoundary(request.headers.get('content-type')!);
  t.truthy(boundary);
  const parts = parseMultipart(Buffer.from(await request.arrayBuffer()), boundary!);
  t.deepEqual(parts.map((part) => part.name), ['prompt', 'n', 'image[]', 'image[]']);
  t.deepEqual(parts[2]!.data, binary);
  t.is(parts[2]!.filename, 'first.png');
  t.is(parts[2]!.contentType, 'image/png');
  t.is(parts[3]!.filename, 'sécond.jpg');
  const fields = formFields(parts);
  t.is(fields.get('prompt'), 'a "quoted" prompt\r\nwith lines');
  t.is(fields.get('n'), '2');
  t.false(fields.has('image[]'));
  t.is(multipartBoundary('application/json'), undefined);
  t.is(multipartBoundary('multipart/form-data; boundary="a b"'), 'a b');
  t.throws(() => parseMultipart(Buffer.from('--b\r\nContent-Disposition: form-data; name="x"\r\n\r\nunterminated'), 'b'), { message: /closing boundary/ });
});
