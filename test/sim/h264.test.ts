// The simulator's H.264 stream (src/sim/media/h264.ts), read back by the syntax it follows:
// the SPS gives the size (macroblocks and crop), the NAL payloads never carry a start-code
// prefix (emulation prevention), the IDR picture codes one byte per macroblock, later pictures
// skip every macroblock, and the seed makes streams differ. That a browser decodes and plays
// it is checked in Chromium (test/browser/account-cabinet.test.ts, the gallery's video).
import test from 'ava';
import { h264Stream } from '../../src/sim/media/h264.js';
import { mp4Video } from '../../src/sim/media/mp4.js';
import { readMp4Info } from '../../src/media-files/mp4.js';

/** Exp-Golomb reading over a NAL payload with its emulation-prevention bytes removed. */
class BitReader {
  private position = 0;
  constructor(private readonly bytes: Buffer) {}
  bit(): number {
    const value = (this.bytes[this.position >> 3]! >> (7 - (this.position & 7))) & 1;
    this.position++;
    return value;
  }
  bits(count: number): number {
    let value = 0;
    for (let index = 0; index < count; index++) value = value * 2 + this.bit();
    return value;
  }
  ue(): number {
    let zeros = 0;
    while (this.bit() === 0) zeros++;
    return 2 ** zeros - 1 + this.bits(zeros);
  }
}

const unescape = (nal: Buffer) => {
  const out: number[] = [];
  for (let index = 1; index < nal.length; index++) {
    if (nal[index] === 3 && out.length >= 2 && out.at(-1) === 0 && out.at(-2) === 0) continue;
    out.push(nal[index]!);
  }
  return Buffer.from(out);
};

function readSps(sps: Buffer) {
  const reader = new BitReader(unescape(sps));
  const profile = reader.bits(8);
  reader.bits(8);
  const level = reader.bits(8);
  reader.ue(); // id
  reader.ue(); // log2_max_frame_num_minus4
  const pocType = reader.ue();
  reader.ue(); // max_num_ref_frames
  reader.bit();
  const mbWidth = reader.ue() + 1;
  const mbHeight = reader.ue() + 1;
  reader.bit();
  reader.bit();
  let crop = { left: 0, right: 0, top: 0, bottom: 0 };
  if (reader.bit()) crop = { left: reader.ue(), right: reader.ue(), top: reader.ue(), bottom: reader.ue() };
  return { profile, level, pocType, width: mbWidth * 16 - 2 * (crop.left + crop.right), height: mbHeight * 16 - 2 * (crop.top + crop.bottom) };
}

test('the SPS describes the requested size, cropped from whole macroblocks; the level fits the frame', (t) => {
  t.like(readSps(h264Stream({ width: 1280, height: 720, pictures: 1, seed: 's' }).sps), { profile: 66, level: 31, pocType: 2, width: 1280, height: 720 });
  t.like(readSps(h264Stream({ width: 1920, height: 1080, pictures: 1, seed: 's' }).sps), { level: 40, width: 1920, height: 1080 });
  t.like(readSps(h264Stream({ width: 3840, height: 2160, pictures: 1, seed: 's' }).sps), { level: 51, width: 3840, height: 2160 });
  t.like(readSps(h264Stream({ width: 962, height: 542, pictures: 1, seed: 's' }).sps), { width: 962, height: 542 });
});

test('pictures: an IDR of one byte per macroblock, then all-skip P slices; no start code inside a NAL unit; the seed changes the bytes', (t) => {
  const stream = h264Stream({ width: 1280, height: 720, pictures: 4, seed: 'video_1' });
  t.is(stream.pictures.length, 4);
  const [sei, idr] = stream.pictures[0]!;
  t.is(sei![0]! & 0x1f, 6);
  t.is(idr![0]! & 0x1f, 5);
  t.true(Math.abs(idr!.length - 3600) < 16, `${idr!.length} bytes for 3600 macroblocks`);
  for (const picture of stream.pictures.slice(1)) {
    t.is(picture.length, 1);
    t.is(picture[0]![0]! & 0x1f, 1);
    t.true(picture[0]!.length < 16);
  }
  for (const unit of [stream.sps, stream.pps, ...stream.pictures.flat()]) {
    for (let index = 1; index + 2 < unit.length; index++) t.false(unit[index] === 0 && unit[index + 1] === 0 && unit[index + 2]! <= 2, 'a start-code prefix inside a NAL unit');
  }
  const other = h264Stream({ width: 1280, height: 720, pictures: 4, seed: 'video_2' });
  t.notDeepEqual(other.pictures[0]![0], sei);
  t.deepEqual(other.pictures[0]![1], idr, 'the picture itself is the same grey');
});

test('the MP4 around it still reads as the requested size and duration', (t) => {
  const file = mp4Video({ width: 1280, height: 720, seconds: 8, seed: 'video_3' });
  t.deepEqual(readMp4Info(file), { durationSeconds: 8, width: 1280, height: 720 });
  t.true(file.length < 8_000, `${file.length} bytes`);
});
