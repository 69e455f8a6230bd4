// Real MP4 (ISO BMFF) files for the simulated video endpoints: ftyp, mdat, and a moov with
// one H.264 ('avc1') video track of the requested size and duration — one picture per second,
// consistent sample tables, the avcC of the stream. The pictures are a real stream (h264.ts:
// a grey IDR picture, then pictures that repeat it), so browsers and players decode and play
// it, and a file stays at a few kilobytes.
import { h264Stream } from './h264.js';

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

function fullBox(type: string, version: number, flags: number, ...payload: Buffer[]): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(((version & 0xff) << 24) | (flags & 0xffffff), 0);
  return box(type, head, ...payload);
}

function u32(...values: number[]): Buffer {
  const buffer = Buffer.alloc(4 * values.length);
  values.forEach((value, index) => buffer.writeUInt32BE(value >>> 0, index * 4));
  return buffer;
}

function u16(...values: number[]): Buffer {
  const buffer = Buffer.alloc(2 * values.length);
  values.forEach((value, index) => buffer.writeUInt16BE(value & 0xffff, index * 2));
  return buffer;
}

/** The unity transformation matrix of mvhd/tkhd. */
const unityMatrix = u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000);
const timescale = 1000;

export interface Mp4Options {
  readonly width: number;
  readonly height: number;
  /** Whole or fractional seconds (> 0). */
  readonly seconds: number;
  /** Carried in the stream (an SEI message), so each video differs byte-wise. */
  readonly seed: string;
}

export function mp4Video(options: Mp4Options): Buffer {
  const duration = Math.max(1, Math.round(options.seconds * timescale));
  const sampleCount = Math.max(1, Math.ceil(options.seconds));
  // The last sample lasts what is left, so the sample durations add up to the duration.
  const deltas = Array.from({ length: sampleCount }, (_, index) => (index < sampleCount - 1 ? timescale : duration - timescale * (sampleCount - 1)));
  const stream = h264Stream({ width: options.width, height: options.height, pictures: sampleCount, seed: options.seed });
  // Each sample: its NAL units with 4-byte length prefixes (avcC lengthSizeMinusOne = 3).
  const samples = stream.pictures.map((units) => Buffer.concat(units.flatMap((unit) => [u32(unit.length), unit])));
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'latin1'));
  const mdat = box('mdat', ...samples);
  const chunkOffset = ftyp.length + 8;

  const { sps, pps } = stream;
  const avcC = box('avcC', Buffer.from([1, stream.profile, stream.compatibility, stream.level, 0xff, 0xe1]), u16(sps.length), sps, Buffer.from([1]), u16(pps.length), pps);
  const compressorName = Buffer.alloc(32);
  const avc1 = box(
    'avc1',
    Buffer.alloc(6), // reserved
    u16(1), // data_reference_index
    Buffer.alloc(16), // pre_defined + reserved
    u16(options.width, options.height),
    u32(0x00480000, 0x00480000, 0), // 72 dpi, reserved
    u16(1), // frame_count
    compressorName,
    u16(0x0018, 0xffff), // depth, pre_defined = -1
    avcC,
  );
  const stbl = box(
    'stbl',
    fullBox('stsd', 0, 0, u32(1), avc1),
    fullBox('stts', 0, 0, u32(deltas.length), ...deltas.map((delta) => u32(1, delta))),
    fullBox('stss', 0, 0, u32(1, 1)),
    fullBox('stsc', 0, 0, u32(1, 1, sampleCount, 1)),
    fullBox('stsz', 0, 0, u32(0, sampleCount), ...samples.map((sample) => u32(sample.length))),
    fullBox('stco', 0, 0, u32(1, chunkOffset)),
  );
  const minf = box('minf', fullBox('vmhd', 0, 1, u16(0, 0, 0, 0)), box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1))), stbl);
  const mdia = box(
    'mdia',
    fullBox('mdhd', 0, 0, u32(0, 0, timescale, duration), u16(0x55c4, 0)), // language "und"
    fullBox('hdlr', 0, 0, u32(0), Buffer.from('vide', 'latin1'), u32(0, 0, 0), Buffer.from('VideoHandler\0', 'latin1')),
    minf,
  );
  const tkhd = fullBox('tkhd', 0, 3, u32(0, 0, 1, 0, duration, 0, 0), u16(0, 0, 0, 0), unityMatrix, u32(options.width * 65536, options.height * 65536));
  const mvhd = fullBox('mvhd', 0, 0, u32(0, 0, timescale, duration, 0x00010000), u16(0x0100, 0), u32(0, 0), unityMatrix, u32(0, 0, 0, 0, 0, 0, 2));
  const moov = box('moov', mvhd, box('trak', tkhd, mdia));
  return Buffer.concat([ftyp, mdat, moov]);
}
