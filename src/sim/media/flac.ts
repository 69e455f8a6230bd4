// FLAC of silence for the simulator's `flac` speech (24 kHz, 16-bit, mono like OpenAI's):
// the "fLaC" marker, a STREAMINFO block, then fixed-size frames of 4096 samples whose single
// subframe is CONSTANT 0 — every field a decoder checks (frame CRC-8, frame CRC-16) is real.
import { speechSampleRate } from './wav.js';

const blockSize = 4096;

/** CRC-8, polynomial 0x07 (FLAC frame headers). */
function crc8(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

/** CRC-16, polynomial 0x8005 (FLAC frames). */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** A frame number in FLAC's UTF-8-like coding (1 byte below 2^7, 2 below 2^11, 3 below 2^16…). */
function codedNumber(value: number): number[] {
  if (value < 0x80) return [value];
  const count = value < 1 << 11 ? 2 : value < 1 << 16 ? 3 : value < 1 << 21 ? 4 : value < 1 << 26 ? 5 : 6;
  const bytes = [((0xff << (8 - count)) & 0xff) | Math.floor(value / 2 ** (6 * (count - 1)))];
  for (let index = count - 2; index >= 0; index--) bytes.push(0x80 | (Math.floor(value / 2 ** (6 * index)) & 0x3f));
  return bytes;
}

function frame(number: number, samples: number): Buffer {
  const full = samples === blockSize;
  const header = [0xff, 0xf8, ((full ? 0b1100 : 0b0111) << 4) | 0b0111 /* 24 kHz */, 0b0000_100_0 /* mono, 16-bit */, ...codedNumber(number)];
  if (!full) header.push((samples - 1) >> 8, (samples - 1) & 0xff);
  header.push(crc8(Uint8Array.from(header)));
  // Subframe: CONSTANT (type 000000, no wasted bits), value 0 in 16 bits.
  const body = Buffer.from([...header, 0x00, 0x00, 0x00]);
  const crc = crc16(body);
  return Buffer.concat([body, Buffer.from([crc >> 8, crc & 0xff])]);
}

export function silentFlac(seconds: number): Buffer {
  const total = Math.max(1, Math.round(seconds * speechSampleRate));
  const info = Buffer.alloc(34);
  info.writeUInt16BE(blockSize, 0);
  info.writeUInt16BE(blockSize, 2);
  // min/max frame size 0 (unknown); then 20 bits rate, 3 bits channels-1, 5 bits bps-1, 36 bits samples.
  const packed = (BigInt(speechSampleRate) << 44n) | (0n << 41n) | (15n << 36n) | BigInt(total);
  info.writeBigUInt64BE(packed, 10);
  // MD5 of the samples left 0: "not computed", which the format allows.
  const frames: Buffer[] = [];
  for (let start = 0, number = 0; start < total; start += blockSize, number++) frames.push(frame(number, Math.min(blockSize, total - start)));
  return Buffer.concat([Buffer.from('fLaC', 'latin1'), Buffer.from([0x80, 0, 0, 34]), info, ...frames]);
}
