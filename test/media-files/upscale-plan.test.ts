import test from 'ava';
import { maxOutputPixels, maxOutputSide, planUpscale } from '../../src/media-files/upscale-plan.js';

const cases: [number, number, number, { inputWidth: number; inputHeight: number; outputWidth: number; outputHeight: number }][] = [
  [100, 50, 4, { inputWidth: 100, inputHeight: 50, outputWidth: 400, outputHeight: 200 }],
  [100, 50, 2, { inputWidth: 50, inputHeight: 25, outputWidth: 200, outputHeight: 100 }],
  [960, 540, 4, { inputWidth: 960, inputHeight: 540, outputWidth: 3840, outputHeight: 2160 }],
  [1920, 1080, 4, { inputWidth: 960, inputHeight: 540, outputWidth: 3840, outputHeight: 2160 }],
  [1920, 1080, 2, { inputWidth: 960, inputHeight: 540, outputWidth: 3840, outputHeight: 2160 }],
  [1000, 1000, 4, { inputWidth: 720, inputHeight: 720, outputWidth: 2880, outputHeight: 2880 }],
  [4000, 100, 2, { inputWidth: 960, inputHeight: 24, outputWidth: 3840, outputHeight: 96 }],
];
for (const [width, height, scale, expected] of cases) {
  test(`upscale ${width}x${height} ×${scale} stays within 4K`, (t) => {
    const plan = planUpscale(width, height, scale);
    t.deepEqual(plan, expected);
    t.true(Math.max(plan.outputWidth, plan.outputHeight) <= maxOutputSide);
    t.true(plan.outputWidth * plan.outputHeight <= maxOutputPixels);
  });
}
