// Real MP4 (ISO BMFF) files for the simulated video endpoints: ftyp, mdat, and a moov with
// one H.264 ('avc1') video track of the requested size and duration — one sample per second,
// consistent sample tables, a plausible avcC. Players and parsers read the container (size,
// duration, codec); the samples are deterministic filler, not decodable pictures, which keeps
// a file at a few hundred bytes per second.
import { seededRandom } from './common.js';

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
  /** Makes the filler deterministic per video. */
  readonly seed: string;
}

export function mp4Video(options: Mp4Options): Buffer {
  const duration = Math.max(1, Math.round(options.seconds * timescale));
  const sampleCount = Math.max(1, Math.ceil(options.seconds));
  // The last sample lasts what is left, so the sample durations add up to the duration.
  const deltas = Array.from({ length: sampleCount }, (_, index) => (index < sampleCount - 1 ? timescale : duration - timescale * (sampleCount - 1)));
  const random = seededRandom('mp4', options.seed, `${options.width}x${options.height}`);
  const samples = Array.from({ length: sampleCount }, (_, index) => {
    const nal = Buffer.alloc(96 + Math.floor(random() * 64));
    nal[0] = index === 0 ? 0x65 : 0x41; // IDR slice first, then non-IDR slices
    for (let i = 1; i < nal.length; i++) nal[i] = Math.floor(random() * 256);
    return Buffer.concat([u32(nal.length), nal]); // 4-byte NAL length prefix (avcC lengthSizeMinusOne = 3)
  });
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'latin1'));
  const mdat = box('mdat', ...samples);
  const chunkOffset = ftyp.length + 8;

  const sps = Buffer.from([0x67, 0x42, 0xc0, 0x1e, 0xd9, 0x00, 0xa0, 0x47, 0xfe, 0xc8]);
  const pps = Buffer.from([0x68, 0xce, 0x38, 0x80]);
  const avcC = box('avcC', Buffer.from([1, 0x42, 0xc0, 0x1e, 0xff, 0xe1]), u16(sps.length), sps, Buffer.from([1]), u16(pps.length), pps);
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
