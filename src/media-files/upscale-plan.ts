// How an upscale is carried out within 4K. The output may not exceed 3840 pixels on its
// longest side nor 3840×2160 pixels in all; the upstream (Stability's fast upscaler) always
// multiplies by 4. So the input is first resized to (final output ÷ 4): for scale 4 it stays
// as it is unless the result would pass 4K; for scale 2 it is halved first.
export const maxOutputSide = 3840;
export const maxOutputPixels = 3840 * 2160;
export const upstreamFactor = 4;

export interface UpscalePlan {
  /** Size of the image sent upstream. */
  readonly inputWidth: number;
  readonly inputHeight: number;
  /** Size of the image the client gets. */
  readonly outputWidth: number;
  readonly outputHeight: number;
}

export function planUpscale(width: number, height: number, scale: number): UpscalePlan {
  const wantedWidth = width * scale;
  const wantedHeight = height * scale;
  const shrink = Math.min(1, maxOutputSide / Math.max(wantedWidth, wantedHeight), Math.sqrt(maxOutputPixels / (wantedWidth * wantedHeight)));
  const inputWidth = Math.max(1, Math.floor((wantedWidth * shrink) / upstreamFactor));
  const inputHeight = Math.max(1, Math.floor((wantedHeight * shrink) / upstreamFactor));
  return { inputWidth, inputHeight, outputWidth: inputWidth * upstreamFactor, outputHeight: inputHeight * upstreamFactor };
}
