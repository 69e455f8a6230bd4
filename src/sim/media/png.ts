// Real image bytes for the simulator, hand-written on node:zlib: a PNG encoder (signature,
// IHDR, IDAT = zlib.deflateSync of the filtered rows, IEND, each chunk with its CRC-32; filter
// byte 0 on every row), a deterministic pattern image (vertical stripes in horizontal bands,
// colours from a hash, so an image is a handful of distinct rows repeated and deflates fast),
// and the dimension readers of PNG (IHDR) and JPEG (SOF marker) used to size edits/upscales.
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

export const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO-HDLC, the one PNG and zip use) of the bytes, continuing from `crc` when given. */
export function crc32(data: Uint8Array, crc = 0): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let index = 0; index < data.length; index++) c = crcTable[(c ^ data[index]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

export interface PngImage {
  readonly width: number;
  readonly height: number;
  /** 3 = RGB (colour type 2), 4 = RGBA (colour type 6); 8 bits per sample. */
  readonly channels: 3 | 4;
  /** The pixels of row y, width * channels bytes, no filter byte. May return the same buffer for many rows. */
  row(y: number): Uint8Array;
}

/** Encodes 8-bit RGB/RGBA rows as a PNG (no interlace, filter 0 on every row). */
export function encodePng(image: PngImage): Buffer {
  const { width, height, channels } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) throw new RangeError(`bad PNG size ${width}x${height}`);
  const stride = width * channels + 1;
  const raw = Buffer.allocUnsafe(stride * height);
  let previous: Uint8Array | undefined;
  for (let y = 0; y < height; y++) {
    const pixels = image.row(y);
    if (pixels.length !== stride - 1) throw new RangeError(`row ${y} has ${pixels.length} bytes, expected ${stride - 1}`);
    const at = y * stride;
    if (pixels === previous) {
      raw.copy(raw, at, at - stride, at); // an identical row: copy the previous one, filter byte included
      continue;
    }
    raw[at] = 0;
    raw.set(pixels, at + 1);
    previous = pixels;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = channels === 4 ? 6 : 2; // colour type
  // compression 0, filter 0, interlace 0
  return Buffer.concat([pngSignature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 6 })), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * A deterministic picture of exactly width x height: 3–8 vertical stripes in 2–6 horizontal
 * bands, colours from sha256(seed); RGBA with half-transparent stripes when `transparent`.
 * Same seed and size → same bytes; different seeds → different images.
 */
export function patternPng(width: number, height: number, seed: string, options: { transparent?: boolean } = {}): Buffer {
  const hash = createHash('sha256').update(seed).digest();
  const channels = options.transparent ? 4 : 3;
  const palette = [0, 1, 2, 3].map((index) => [hash[index * 3]!, hash[index * 3 + 1]!, hash[index * 3 + 2]!]);
  const stripes = 3 + (hash[12]! % 6);
  const bands = Math.min(height, 2 + (hash[13]! % 5));
  const bandRows: Uint8Array[] = [];
  for (let band = 0; band < bands; band++) {
    const row = Buffer.allocUnsafe(width * channels);
    for (let x = 0; x < width; x++) {
      const stripe = Math.floor((x * stripes) / width);
      const colour = palette[(stripe + band) % palette.length]!;
      const at = x * channels;
      row[at] = colour[0]!;
      row[at + 1] = colour[1]!;
      row[at + 2] = colour[2]!;
      if (channels === 4) row[at + 3] = (stripe + band) % 2 === 0 ? 255 : 96;
    }
    bandRows.push(row);
  }
  return encodePng({ width, height, channels, row: (y) => bandRows[Math.floor((y * bands) / height)]! });
}

export interface PngChunk {
  readonly type: string;
  readonly data: Buffer;
}

/** Splits a PNG into its chunks, checking the signature and every CRC; throws on anything malformed. */
export function pngChunks(png: Uint8Array): PngChunk[] {
  const buffer = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (buffer.length < 8 || !buffer.subarray(0, 8).equals(pngSignature)) throw new Error('not a PNG (signature)');
  const chunks: PngChunk[] = [];
  let at = 8;
  while (at < buffer.length) {
    if (at + 12 > buffer.length) throw new Error('PNG cut short');
    const length = buffer.readUInt32BE(at);
    if (at + 12 + length > buffer.length) throw new Error('PNG chunk cut short');
    const type = buffer.toString('latin1', at + 4, at + 8);
    if (crc32(buffer.subarray(at + 4, at + 8 + length)) !== buffer.readUInt32BE(at + 8 + length)) throw new Error(`PNG chunk ${type}: bad CRC`);
    chunks.push({ type, data: buffer.subarray(at + 8, at + 8 + length) });
    at += 12 + length;
    if (type === 'IEND') break;
  }
  return chunks;
}

export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

/** Width/height from a PNG's IHDR, or undefined when the bytes are not a PNG. */
export function readPngSize(bytes: Uint8Array): ImageSize | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 24 || !buffer.subarray(0, 8).equals(pngSignature)) return undefined;
  if (buffer.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  const width = buffer.readUInt32BE(16);
  const height = buffer.readUInt32BE(20);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** Width/height from a JPEG's first SOFn segment (baseline, progressive, lossless…), or undefined. */
export function readJpegSize(bytes: Uint8Array): ImageSize | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 4 || buffer[0] !== 0xff || buffer[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 4 <= buffer.length) {
    if (buffer[at] !== 0xff) return undefined;
    let marker = buffer[at + 1]!;
    while (marker === 0xff && at + 2 < buffer.length) marker = buffer[++at + 1]!; // fill bytes
    at += 2;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue; // standalone markers
    if (marker === 0xd9 || marker === 0xda || at + 2 > buffer.length) return undefined; // EOI / scan before any frame
    const length = buffer.readUInt16BE(at);
    if (length < 2) return undefined;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      if (at + 7 > buffer.length) return undefined;
      const height = buffer.readUInt16BE(at + 3);
      const width = buffer.readUInt16BE(at + 5);
      return width > 0 && height > 0 ? { width, height } : undefined;
    }
    at += length;
  }
  return undefined;
}

export interface DetectedImage extends ImageSize {
  readonly format: 'png' | 'jpeg';
  readonly mediaType: 'image/png' | 'image/jpeg';
}

/** PNG or JPEG with its size; undefined for anything else (the simulator's "unsupported image"). */
export function readImageSize(bytes: Uint8Array): DetectedImage | undefined {
  const png = readPngSize(bytes);
  if (png) return { format: 'png', mediaType: 'image/png', ...png };
  const jpeg = readJpegSize(bytes);
  if (jpeg) return { format: 'jpeg', mediaType: 'image/jpeg', ...jpeg };
  return undefined;
}
