import test from 'ava';
import { MemoryRateLimiter, gcra } from '../../src/auth/rate-limiter.js';
import { formatReset } from '../../src/http/middleware/rate-limit.js';

test('gcra: a fresh key may burst its whole allowance, then one per interval', (t) => {
  let tat = 0;
  const now = 100_000;
  for (let i = 0; i < 60; i++) {
    const { decision, newTat } = gcra(tat || now, now, 60);
    t.true(decision.allowed);
    t.is(decision.remaining, 59 - i);
    tat = newTat!;
  }
  const refused = gcra(tat, now, 60);
  t.false(refused.decision.allowed);
  t.is(refused.newTat, null, 'a refusal does not move the state');
  t.is(refused.decision.retryAfterMs, 1000);
  t.is(refused.decision.resetMs, 60_000);
  t.true(gcra(tat, now + 1000, 60).decision.allowed);
});

test('gcra: idle keys regain their allowance, never more', (t) => {
  const { decision } = gcra(0, 10_000_000, 60);
  t.is(decision.remaining, 59);
});

test('the memory limiter keeps keys apart', async (t) => {
  const limiter = new MemoryRateLimiter(() => 42_000);
  for (let i = 0; i < 3; i++) t.true((await limiter.consume('a', 3)).allowed);
  t.false((await limiter.consume('a', 3)).allowed);
  t.true((await limiter.consume('b', 3)).allowed);
  t.is((await limiter.consume('a', 3)).retryAfterMs, 20_000);
});

for (const [ms, text] of [[0, '0ms'], [250.2, '251ms'], [1000, '1s'], [59_001, '1m0s'], [58_500, '59s'], [60_000, '1m0s'], [90_500, '1m31s']] as const) {
  test(`formatReset(${ms}) is "${text}"`, (t) => t.is(formatReset(ms), text));
}
