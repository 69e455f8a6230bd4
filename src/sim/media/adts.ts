// AAC of silence for the simulator's `aac` speech: ADTS frames (MPEG-4 AAC-LC, 24 kHz, mono,
// no CRC), 1024 samples each, every one carrying the smallest valid raw data block: a single
// channel element with max_sfb 0 (no spectral data, so silence), then END.

const samplesPerFrame = 1024;
const sampleRate = 24_000;
const sampleRateIndex = 6; // 24 kHz in the MPEG-4 table
// SCE tag 0, global_gain 100, ics_info long window with max_sfb 0, no pulse/TNS/gain control, END.
const rawSilence = [0x00, 0xc8, 0x00, 0x07];

function adtsFrame(): Buffer {
  const length = 7 + rawSilence.length;
  const header = Buffer.alloc(7);
  header[0] = 0xff;
  header[1] = 0xf1; // sync, MPEG-4, layer 0, no CRC
  header[2] = (1 << 6) /* AAC LC (object type 2, minus one) */ | (sampleRateIndex << 2) | 0 /* private, channel config high bit */;
  header[3] = (1 << 6) /* mono */ | ((length >> 11) & 0x03);
  header[4] = (length >> 3) & 0xff;
  header[5] = ((length & 0x07) << 5) | 0x1f; // buffer fullness 0x7FF (variable rate)…
  header[6] = 0xfc; // …and one raw data block
  return Buffer.concat([header, Buffer.from(rawSilence)]);
}

export function silentAdtsAac(seconds: number): Buffer {
  const frames = Math.max(1, Math.ceil((seconds * sampleRate) / samplesPerFrame));
  const frame = adtsFrame();
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}
