// The pixel size an image request's `aspect_ratio` ("7:3") and `resolution` ("1K", "2K", "4K")
// stand for, as the models that take them (Gemini's image models) draw: the area of a square
// of 1024 × the resolution's digit, at the asked ratio, each side a multiple of 16 rounded
// down so the area never exceeds the square's (1K 1:1 = 1024x1024, 1K 16:9 = 1360x768, 2K 7:3 =
// 3120x1328). The gateway sends this size upstream: OpenAI's wire has no field for either.

export interface PixelSize {
  readonly width: number;
  readonly height: number;
}

/** "W:H" with positive whole numbers, or undefined when the text is not one. */
export function parseAspectRatio(text: string): { width: number; height: number } | undefined {
  const match = /^(\d{1,3}):(\d{1,3})$/.exec(text);
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** "1K", "2K", "4K" (any whole 1–8, case-insensitive) → the side of its square, or undefined. */
export function parseResolution(text: string): number | undefined {
  const match = /^([1-8])K$/i.exec(text);
  return match ? Number(match[1]) * 1024 : undefined;
}

/** Without a ratio the image is square; without a resolution, 1K. Undefined when either cannot be read. */
export function aspectSize(aspectRatio: string | undefined, resolution: string | undefined): PixelSize | undefined {
  const ratio = aspectRatio === undefined ? { width: 1, height: 1 } : parseAspectRatio(aspectRatio);
  const side = resolution === undefined ? 1024 : parseResolution(resolution);
  if (!ratio || side === undefined) return undefined;
  const scale = Math.sqrt((side * side) / (ratio.width * ratio.height));
  const multipleOf16 = (value: number) => Math.max(16, Math.floor(value / 16) * 16);
  return { width: multipleOf16(ratio.width * scale), height: multipleOf16(ratio.height * scale) };
}
