// Ogg Opus of silence for the simulator's `opus` speech: an OpusHead page, an OpusTags page,
// then pages of 20 ms Opus packets (TOC 0xF8: CELT fullband 20 ms mono, the 3-byte packet
// encoders emit for digital silence), granule positions at 48 kHz ending at the exact length.

const preSkip = 312;
const samplesPerPacket = 960; // 20 ms at 48 kHz
const silentPacket = [0xf8, 0xff, 0xfe];
const packetsPerPage = 50; // one second a page

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** Ogg's CRC-32: polynomial 0x04C11DB7, not reflected, initial 0. */
function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ crcTable[((crc >>> 24) ^ byte) & 0xff]!) >>> 0;
  return crc;
}

function page(packets: Buffer[], options: { sequence: number; granule: bigint; first?: boolean; last?: boolean }): Buffer {
  const lacing: number[] = [];
  for (const packet of packets) {
    for (let left = packet.length; ; left -= 255) {
      lacing.push(Math.min(left, 255));
      if (left < 255) break;
    }
  }
  const header = Buffer.alloc(27 + lacing.length);
  header.write('OggS', 0, 'latin1');
  header[5] = (options.first ? 0x02 : 0) | (options.last ? 0x04 : 0);
  header.writeBigUInt64LE(options.granule, 6);
  header.writeUInt32LE(0x53494d31, 14); // serial "SIM1"
  header.writeUInt32LE(options.sequence, 18);
  header[26] = lacing.length;
  Buffer.from(lacing).copy(header, 27);
  const whole = Buffer.concat([header, ...packets]);
  whole.writeUInt32LE(oggCrc(whole), 22);
  return whole;
}

export function silentOggOpus(seconds: number, inputSampleRate = 24_000): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1; // version
  head[9] = 1; // mono
  head.writeUInt16LE(preSkip, 10);
  head.writeUInt32LE(inputSampleRate, 12);
  const vendor = Buffer.from('gateway simulator', 'utf8');
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write('OpusTags', 0, 'latin1');
  tags.writeUInt32LE(vendor.length, 8);
  vendor.copy(tags, 12);
  const pages = [page([head], { sequence: 0, granule: 0n, first: true }), page([tags], { sequence: 1, granule: 0n })];
  const samples = Math.max(1, Math.round(seconds * 48_000));
  const packets = Math.ceil((samples + preSkip) / samplesPerPacket);
  for (let done = 0, sequence = 2; done < packets; sequence++) {
    const count = Math.min(packetsPerPage, packets - done);
    done += count;
    const last = done === packets;
    // The last page's granule trims the final packet to the exact length.
    const granule = last ? BigInt(samples + preSkip) : BigInt(done * samplesPerPacket);
    pages.push(page(Array.from({ length: count }, () => Buffer.from(silentPacket)), { sequence, granule, last }));
  }
  return Buffer.concat(pages);
}

/**
 * The length of an Ogg Opus stream (a Telegram voice message), or undefined when the bytes are
 * not one: the last page's granule position (48 kHz samples) less the OpusHead's pre-skip.
 */
export function oggOpusSeconds(bytes: Uint8Array): number | undefined {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (data.length < 47 || data.toString('latin1', 0, 4) !== 'OggS' || data.toString('latin1', 28, 36) !== 'OpusHead') return undefined;
  const skip = data.readUInt16LE(38);
  const last = data.lastIndexOf('OggS', data.length - 27, 'latin1');
  if (last < 0) return undefined;
  const granule = Number(data.readBigUInt64LE(last + 6));
  return Math.max(0, granule - skip) / 48_000;
}
