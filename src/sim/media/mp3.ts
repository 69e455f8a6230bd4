// MPEG audio for the simulator: a writer of valid MPEG-1 Layer III streams of silent frames
// (128 kbit/s, 44.1 kHz, 1152 samples per frame: header + zeroed side info and main data, so
// every decoder plays silence) and a reader that walks the frames of any MPEG-1/2/2.5 Layer
// I/II/III stream (after an ID3v2 tag, skipping a Xing/Info/VBRI header frame) to measure it.

export const mp3SampleRate = 44_100;
export const mp3Bitrate = 128_000;
export const mp3SamplesPerFrame = 1152;

/** Bytes of an MPEG-1 Layer III frame: 144 * bitrate / sample rate (417.96 here) + padding. */
const frameBase = Math.floor((144 * mp3Bitrate) / mp3SampleRate); // 417
const frameRemainder = (144 * mp3Bitrate) % mp3SampleRate; // 42300 of 44100

/** Frames needed for `seconds` of audio (at least 1). */
export function mp3FramesFor(seconds: number): number {
  return Math.max(1, Math.round((seconds * mp3SampleRate) / mp3SamplesPerFrame));
}

/**
 * A silent MPEG-1 Layer III stream of about `seconds` (rounded to whole 1152-sample frames,
 * at least one). Frames are 417 or 418 bytes: the padding bit is set whenever the running
 * remainder of 144 * 128000 / 44100 reaches a whole byte, as encoders do for constant bitrate.
 */
export function silentMp3(seconds: number, options: { channels?: 1 | 2 } = {}): Buffer {
  const frames = mp3FramesFor(seconds);
  const stereo = options.channels === 2;
  let padded = 0;
  let remainder = 0;
  const pads = new Uint8Array(frames);
  for (let index = 0; index < frames; index++) {
    remainder += frameRemainder;
    if (remainder >= mp3SampleRate) {
      remainder -= mp3SampleRate;
      pads[index] = 1;
      padded++;
    }
  }
  const out = Buffer.alloc(frames * frameBase + padded); // zeroed: side info and main data are all zero
  let at = 0;
  for (let index = 0; index < frames; index++) {
    out[at] = 0xff;
    out[at + 1] = 0xfb; // sync, MPEG-1, Layer III, no CRC
    out[at + 2] = 0x90 | (pads[index]! << 1); // bitrate index 9 (128 kbit/s), 44.1 kHz, padding bit
    out[at + 3] = stereo ? 0x04 : 0xc4; // channel mode stereo / mono, original
    at += frameBase + pads[index]!;
  }
  return out;
}

/** Offset of the first byte after an ID3v2 tag at the start (0 when there is none). */
export function skipId3v2(bytes: Uint8Array): number {
  if (bytes.length < 10 || bytes[0] !== 0x49 || bytes[1] !== 0x44 || bytes[2] !== 0x33) return 0; // "ID3"
  const size = ((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f);
  const footer = bytes[5]! & 0x10 ? 10 : 0;
  return Math.min(bytes.length, 10 + size + footer);
}

const bitratesKbps = {
  v1: [
    [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448], // Layer I
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384], // Layer II
    [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320], // Layer III
  ],
  v2: [
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  ],
};
const sampleRates: Record<number, readonly number[]> = { 3: [44_100, 48_000, 32_000], 2: [22_050, 24_000, 16_000], 0: [11_025, 12_000, 8_000] };

export interface MpegFrameHeader {
  /** 1 (MPEG-1), 2 (MPEG-2) or 2.5. */
  readonly version: 1 | 2 | 2.5;
  readonly layer: 1 | 2 | 3;
  readonly bitrate: number;
  readonly sampleRate: number;
  readonly channels: 1 | 2;
  /** Whole frame, header included. */
  readonly length: number;
  readonly samples: number;
}

/** The MPEG audio frame header at `at`, or undefined (no sync, reserved values, free format). */
export function readMpegFrameHeader(bytes: Uint8Array, at: number): MpegFrameHeader | undefined {
  if (at + 4 > bytes.length || bytes[at] !== 0xff || (bytes[at + 1]! & 0xe0) !== 0xe0) return undefined;
  const versionBits = (bytes[at + 1]! >> 3) & 3;
  const layerBits = (bytes[at + 1]! >> 1) & 3;
  const bitrateIndex = bytes[at + 2]! >> 4;
  const rateIndex = (bytes[at + 2]! >> 2) & 3;
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const version = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 2.5;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const bitrate = (version === 1 ? bitratesKbps.v1 : bitratesKbps.v2)[layer - 1]![bitrateIndex]! * 1000;
  const sampleRate = sampleRates[versionBits]![rateIndex]!;
  const padding = (bytes[at + 2]! >> 1) & 1;
  const channels = bytes[at + 3]! >> 6 === 3 ? 1 : 2;
  let length: number;
  let samples: number;
  if (layer === 1) {
    length = (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
    samples = 384;
  } else if (layer === 2 || version === 1) {
    length = Math.floor((144 * bitrate) / sampleRate) + padding;
    samples = 1152;
  } else {
    length = Math.floor((72 * bitrate) / sampleRate) + padding;
    samples = 576;
  }
  return { version, layer, bitrate, sampleRate, channels, length, samples };
}

export interface Mp3Info {
  /** Audio frames (a Xing/Info/VBRI header frame is not counted). */
  readonly frames: number;
  readonly samples: number;
  readonly sampleRate: number;
  readonly channels: 1 | 2;
  readonly seconds: number;
}

function isInfoFrame(bytes: Uint8Array, at: number, header: MpegFrameHeader): boolean {
  if (header.layer !== 3) return false;
  const sideInfo = header.version === 1 ? (header.channels === 1 ? 17 : 32) : header.channels === 1 ? 9 : 17;
  const tag = (offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
  const xing = tag(at + 4 + sideInfo);
  return xing === 'Xing' || xing === 'Info' || tag(at + 36) === 'VBRI';
}

/**
 * Measures an MPEG audio stream by walking its frames: skips a leading ID3v2 tag, resyncs over
 * junk, and accepts the first frame only when the next one follows it (or the data ends), so
 * random bytes are not taken for audio. Undefined when no frame is found.
 */
export function readMp3Info(bytes: Uint8Array): Mp3Info | undefined {
  let at = skipId3v2(bytes);
  let frames = 0;
  let samples = 0;
  let first: MpegFrameHeader | undefined;
  while (at + 4 <= bytes.length) {
    const header = readMpegFrameHeader(bytes, at);
    const fits = header !== undefined && at + header.length <= bytes.length;
    if (!header || !fits) {
      at++;
      continue;
    }
    if (!first) {
      const next = at + header.length;
      if (next + 4 <= bytes.length && !readMpegFrameHeader(bytes, next)) {
        at++;
        continue;
      }
      first = header;
      if (isInfoFrame(bytes, at, header)) {
        at += header.length;
        continue;
      }
    }
    frames++;
    samples += header.samples;
    at += header.length;
  }
  if (!first) return undefined;
  return { frames, samples, sampleRate: first.sampleRate, channels: first.channels, seconds: samples / first.sampleRate };
}
