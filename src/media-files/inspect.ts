// Facts the gateway reads from uploaded media itself instead of trusting the client: the
// duration of audio (transcription is charged per second of it) and the type of an image
// (a corrupt or foreign upload is a 422 before anything is held or sent upstream).

/** Seconds of audio in the file, or undefined when it cannot be decoded. */
export async function audioSeconds(data: Uint8Array, mediaType?: string): Promise<number | undefined> {
  try {
    // Loaded on first use: the parser is ~7 MB of memory a gateway without audio uploads never needs.
    const { parseBuffer } = await import('music-metadata');
    const metadata = await parseBuffer(data, mediaType ? { mimeType: mediaType } : undefined, { duration: true, skipCovers: true });
    const seconds = metadata.format.duration;
    return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
  } catch {
    return undefined;
  }
}

/** "image/png" | "image/jpeg" | "image/webp" from the magic bytes, or undefined. */
export function imageType(data: Uint8Array): string | undefined {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes.length > 24 && bytes.subarray(0, 8).toString('hex') === '89504e470d0a1a0a' && bytes.subarray(12, 16).toString('latin1') === 'IHDR') return 'image/png';
  if (bytes.length > 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length > 12 && bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}
