// Upstream health per route (the admin API's /upstreams): calls and errors of the last 15
// minutes by minute, latency percentiles over the window's calls, the last failures newest
// first — on the injected clock.
import test from 'ava';
import { RouteHealth, recentErrorsKept } from '../../src/observability/route-health.js';
import { testClock } from '../helpers/clock.js';

const note = (status: string) => ({ status, message: `failed with ${status}`, model: 'sim/chat', operation: 'chat', requestId: `req_${status}`, jobId: null });

test('counts calls and errors of the window, latency percentiles, the last failures newest first', (t) => {
  const clock = testClock({ start: Date.UTC(2026, 10, 26, 9, 0, 30) });
  const health = new RouteHealth(clock.now);
  t.deepEqual(health.snapshot('sim:chat'), { calls: 0, errors: 0, latencyMs: null, recentErrors: [] });
  for (let ms = 1; ms <= 100; ms++) health.called('sim:chat', ms / 1000);
  health.failed('sim:chat', note('500'));
  clock.advance(60_000);
  health.called('sim:chat', 0.5);
  health.failed('sim:chat', note('429'));
  health.called('sim:image', 2);
  const snapshot = health.snapshot('sim:chat');
  t.is(snapshot.calls, 101);
  t.is(snapshot.errors, 2);
  t.deepEqual(snapshot.latencyMs, { p50: 51, p95: 96, max: 500 });
  t.deepEqual(
    snapshot.recentErrors.map((entry) => [entry.status, entry.at]),
    [
      ['429', Date.UTC(2026, 10, 26, 9, 1, 30)],
      ['500', Date.UTC(2026, 10, 26, 9, 0, 30)],
    ],
  );
  t.deepEqual(health.snapshot('sim:image'), { calls: 1, errors: 0, latencyMs: { p50: 2000, p95: 2000, max: 2000 }, recentErrors: [] });

  // 14 minutes on, the first minute has left the window; 15 minutes after the last call, all has.
  clock.advance(14 * 60_000);
  t.like(health.snapshot('sim:chat'), { calls: 1, errors: 1, latencyMs: { p50: 500, p95: 500, max: 500 } });
  clock.advance(60_000);
  t.like(health.snapshot('sim:chat'), { calls: 0, errors: 0, latencyMs: null });
  t.is(health.snapshot('sim:chat').recentErrors.length, 2, 'the last failures stay listed with their time');
});

test('keeps the last failures only, and the newest latency samples', (t) => {
  const clock = testClock();
  const health = new RouteHealth(clock.now);
  for (let index = 0; index < recentErrorsKept + 5; index++) health.failed('p:m', note(String(500 + index)));
  const recent = health.snapshot('p:m').recentErrors;
  t.is(recent.length, recentErrorsKept);
  t.is(recent[0]!.status, String(500 + recentErrorsKept + 4));
  for (let index = 0; index < 1000; index++) health.called('p:m', index < 744 ? 10 : 0.001);
  // The ring holds the newest 256 samples: all 1 ms.
  t.like(health.snapshot('p:m'), { calls: 1000, latencyMs: { p50: 1, p95: 1, max: 1 } });
});
