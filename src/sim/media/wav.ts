// PCM audio for the simulator: RIFF/WAVE files of 16-bit silence (OpenAI's speech format is
// 24 kHz mono), raw 16-bit little-endian PCM, and a reader of a WAVE file's format and length.

export const speechSampleRate = 24_000;

function sampleCount(seconds: number, sampleRate: number): number {
  return Math.max(1, Math.round(seconds * sampleRate));
}

/** Raw signed 16-bit little-endian mono silence (OpenAI `pcm`: 24 kHz). */
export function silentPcm(seconds: number, sampleRate = speechSampleRate): Buffer {
  return Buffer.alloc(sampleCount(seconds, sampleRate) * 2);
}

/** The 44-byte canonical header of a PCM WAVE file holding `dataBytes` of samples. */
export function wavHeader(dataBytes: number, sampleRate: number, channels = 1, bitsPerSample = 16): Buffer {
  const blockAlign = channels * (bitsPerSample / 8);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(Math.min(36 + dataBytes, 0xffffffff), 4); // 0xFFFFFFFF: a streamed file of unknown length
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(bitsPerSample, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** A 16-bit mono PCM WAVE file of silence (OpenAI `wav`: 24 kHz). */
export function silentWav(seconds: number, sampleRate = speechSampleRate): Buffer {
  const data = silentPcm(seconds, sampleRate);
  return Buffer.concat([wavHeader(data.length, sampleRate), data]);
}

export interface WavInfo {
  /** 1 = PCM, 3 = float, 0xfffe = extensible… */
  readonly format: number;
  readonly sampleRate: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  readonly dataBytes: number;
  readonly seconds: number;
}

/**
 * Reads a RIFF/WAVE file's `fmt ` and `data` chunks (any order, other chunks skipped). A data
 * size of 0 or 0xFFFFFFFF (streamed WAV) or past the end counts the bytes actually present.
 */
export function readWavInfo(bytes: Uint8Array): WavInfo | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 12 || buffer.toString('latin1', 0, 4) !== 'RIFF' || buffer.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  let at = 12;
  let fmt: Omit<WavInfo, 'dataBytes' | 'seconds'> & { byteRate: number } | undefined;
  while (at + 8 <= buffer.length) {
    const id = buffer.toString('latin1', at, at + 4);
    const size = buffer.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ' && size >= 16 && body + 16 <= buffer.length) {
      fmt = {
        format: buffer.readUInt16LE(body),
        channels: buffer.readUInt16LE(body + 2),
        sampleRate: buffer.readUInt32LE(body + 4),
        byteRate: buffer.readUInt32LE(body + 8),
        bitsPerSample: buffer.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!fmt || fmt.byteRate === 0 || fmt.sampleRate === 0) return undefined;
      const present = buffer.length - body;
      const dataBytes = size === 0 || size === 0xffffffff || size > present ? present : size;
      const { byteRate, ...info } = fmt;
      return { ...info, dataBytes, seconds: dataBytes / byteRate };
    }
    at = body + size + (size & 1); // chunks are padded to even sizes
  }
  return undefined;
}
