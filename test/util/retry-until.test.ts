// The shared retry pieces of pending settles and batched inserts, on a fake clock.
import test from 'ava';
import { backoffMs, retryUntil } from '../../src/util/retry-until.js';

test('backoff doubles from the base per failure and stops at the cap', (t) => {
  t.deepEqual([0, 1, 2, 3, 4, 5, 6, 100].map((failures) => backoffMs(failures, 250, 5_000)), [250, 250, 500, 1_000, 2_000, 4_000, 5_000, 5_000]);
});

test('retryUntil attempts at once, then after each delay, and makes its last attempt at the deadline', async (t) => {
  let now = 1_000;
  const attempts: number[] = [];
  const waits: number[] = [];
  await retryUntil(1_000 + 700, {
    attempt: async () => void attempts.push(now),
    done: () => false,
    delayMs: () => 300,
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
  });
  t.deepEqual(attempts, [1_000, 1_300, 1_600, 1_700]);
  t.deepEqual(waits, [300, 300, 100]);
});

test('retryUntil stops as soon as the work is done', async (t) => {
  let left = 2;
  let now = 0;
  let attempts = 0;
  await retryUntil(10_000, {
    attempt: async () => {
      attempts++;
      left--;
    },
    done: () => left === 0,
    delayMs: () => 50,
    now: () => now,
    sleep: async (ms) => void (now += ms),
  });
  t.is(attempts, 2);
  t.is(now, 50);
});
