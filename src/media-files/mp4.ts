// Reads what the gateway needs from an MP4 (ISO BMFF) upload: the duration (mvhd) and the
// picture size of the first video track (tkhd of a trak whose handler is 'vide'). Walks the
// box tree without decoding anything; anything it does not understand is `undefined`, never
// an exception, so a client's garbage is a 422 and not a crash.

export interface Mp4Info {
  readonly durationSeconds: number;
  readonly width: number;
  readonly height: number;
}

interface Box {
  readonly type: string;
  /** Payload start and end (exclusive) in the file. */
  readonly start: number;
  readonly end: number;
}

/** The boxes between `start` and `end`; stops at the first malformed header. */
function boxes(view: DataView, start: number, end: number): Box[] {
  const found: Box[] = [];
  let offset = start;
  while (offset + 8 <= end) {
    let size = view.getUint32(offset);
    const type = String.fromCharCode(view.getUint8(offset + 4), view.getUint8(offset + 5), view.getUint8(offset + 6), view.getUint8(offset + 7));
    let header = 8;
    if (size === 1) {
      if (offset + 16 > end) break;
      const large = view.getBigUint64(offset + 8);
      if (large > BigInt(Number.MAX_SAFE_INTEGER)) break;
      size = Number(large);
      header = 16;
    } else if (size === 0) {
      size = end - offset; // to the end of the enclosing space
    }
    if (size < header || offset + size > end) break;
    found.push({ type, start: offset + header, end: offset + size });
    offset += size;
  }
  return found;
}

const child = (view: DataView, parent: Box, type: string): Box | undefined => boxes(view, parent.start, parent.end).find((box) => box.type === type);

/** mvhd: version 0 has 32-bit times and duration, version 1 64-bit. */
function movieDuration(view: DataView, mvhd: Box): number | undefined {
  const version = view.getUint8(mvhd.start);
  if (version === 1) {
    if (mvhd.start + 32 > mvhd.end) return undefined;
    const timescale = view.getUint32(mvhd.start + 20);
    const duration = Number(view.getBigUint64(mvhd.start + 24));
    return timescale > 0 ? duration / timescale : undefined;
  }
  if (mvhd.start + 20 > mvhd.end) return undefined;
  const timescale = view.getUint32(mvhd.start + 12);
  const duration = view.getUint32(mvhd.start + 16);
  return timescale > 0 ? duration / timescale : undefined;
}

/** tkhd: width and height are 16.16 fixed point at the end of the box. */
function trackSize(view: DataView, tkhd: Box): { width: number; height: number } | undefined {
  if (tkhd.end - 8 < tkhd.start) return undefined;
  return { width: view.getUint32(tkhd.end - 8) / 65536, height: view.getUint32(tkhd.end - 4) / 65536 };
}

function handlerType(view: DataView, trak: Box): string | undefined {
  const mdia = child(view, trak, 'mdia');
  const hdlr = mdia && child(view, mdia, 'hdlr');
  if (!hdlr || hdlr.start + 12 > hdlr.end) return undefined;
  return String.fromCharCode(view.getUint8(hdlr.start + 8), view.getUint8(hdlr.start + 9), view.getUint8(hdlr.start + 10), view.getUint8(hdlr.start + 11));
}

export function readMp4Info(data: Uint8Array): Mp4Info | undefined {
  try {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const top = boxes(view, 0, data.byteLength);
    if (top[0]?.type !== 'ftyp') return undefined;
    const moov = top.find((box) => box.type === 'moov');
    const mvhd = moov && child(view, moov, 'mvhd');
    if (!moov || !mvhd) return undefined;
    const durationSeconds = movieDuration(view, mvhd);
    if (durationSeconds === undefined) return undefined;
    for (const trak of boxes(view, moov.start, moov.end).filter((box) => box.type === 'trak')) {
      if (handlerType(view, trak) !== 'vide') continue;
      const tkhd = child(view, trak, 'tkhd');
      const size = tkhd && trackSize(view, tkhd);
      if (size && size.width > 0 && size.height > 0) return { durationSeconds, width: Math.round(size.width), height: Math.round(size.height) };
    }
    return undefined;
  } catch {
    return undefined; // a truncated box read past the end
  }
}
