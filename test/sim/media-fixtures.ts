// Fixtures shared by the media simulator tests.

/** A JPEG skeleton as cameras write it: SOI, APP0 (JFIF), DQT, SOF0 WxH, SOS, EOI (no real scan data). */
export function jpegSkeleton(width: number, height: number): Buffer {
  const segment = (marker: number, body: number[]) => [0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body];
  return Buffer.from([
    0xff, 0xd8,
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...segment(0xdb, [0, ...new Array(64).fill(1)]),
    ...segment(0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0]),
    ...segment(0xda, [1, 1, 0, 0, 63, 0]),
    0x00, 0xff, 0xd9,
  ]);
}

/** POSTs a multipart form with fetch; status, headers and the body text. */
export async function postForm(url: string, form: FormData, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const response = await fetch(url, { method: 'POST', body: form, headers });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}
