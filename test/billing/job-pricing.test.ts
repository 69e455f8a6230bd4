// Exact prices of the async jobs: per second by size or resolution plus references, output
// megapixel-seconds for the upscale, flat per generation, and upstream-reported costs.
import test from 'ava';
import { generationPriceUnits, reportedCostUnits, resolutionOf, videoPriceUnits, videoSecondPrice, videoUpscalePriceUnits } from '../../src/billing/job-pricing.js';

const soraPro = { per_second: { '1792x1024': '45.00', '720p': '27.00', default: '20.00' }, per_reference: '1.80' };

test('video: the size entry wins over the resolution, then "default"; references add their price', (t) => {
  t.is(videoSecondPrice(soraPro, '1792x1024'), '45.00');
  t.is(videoSecondPrice(soraPro, '1280x720'), '27.00', 'by resolution (720p)');
  t.is(videoSecondPrice(soraPro, '1920x1080'), '20.00', 'default');
  t.is(videoSecondPrice({ per_second: { '720p': '9.00' } }, '1920x1080'), undefined, 'no entry, no default: no price');
  t.is(videoSecondPrice({ per_second: '9.00' }, '1920x1080'), '9.00');
  t.is(videoPriceUnits(soraPro, { seconds: 8, size: '1792x1024', references: 0 }), 3_600_000n);
  t.is(videoPriceUnits(soraPro, { seconds: 4, size: '1280x720', references: 1 }), 1_080_000n + 18_000n);
  t.is(resolutionOf('720x1280'), '720p');
  t.is(resolutionOf('3840x2160'), '4K');
});

test('video upscale: input pixels × factor² × seconds / 10⁶ at the megapixel-second price, rounded up once', (t) => {
  // 640×360 ×2 → 1280×720 = 0.9216 MP × 4 s × 0.90 = 3.31776 RUB → 3.3178
  t.is(videoUpscalePriceUnits({ per_megapixel_second: '0.90' }, { width: 640, height: 360, durationMs: 4000, factorHundredths: 200 }), 33_178n);
  // 1920×1080 ×1.5 → 4.6656 MP × 2.5 s × 0.90 = 10.4976 RUB exactly
  t.is(videoUpscalePriceUnits({ per_megapixel_second: '0.90' }, { width: 1920, height: 1080, durationMs: 2500, factorHundredths: 150 }), 104_976n);
});

test('music: flat per generation; reported costs convert exactly and round up', (t) => {
  t.is(generationPriceUnits({ per_generation: '7.20' }), 72_000n);
  t.is(reportedCostUnits({ currency: 'USD', amount: '0.02' }, '90.00'), 18_000n);
  t.is(reportedCostUnits({ currency: 'USD', amount: '0.00001' }, '90.00'), 9n);
  t.is(reportedCostUnits({ currency: 'USD', amount: '0.000001' }, '90.00'), 1n, '0.00009 RUB rounds up to one unit');
  t.is(reportedCostUnits({ currency: 'RUB', amount: '1.5' }, '90.00'), 15_000n);
});
