// The one route loop chat, media and job submits share: which routes it tries, which pauses it
// records (capped), when it stops, and which failure it reports.
import test from 'ava';
import type { Route } from '../../src/catalog/catalog.js';
import { availableRoutes, maxCooldownMs, RouteCannotServe, routeKey, tryRoutes } from '../../src/pipeline/route-fallback.js';
import { UpstreamError } from '../../src/vendors/types.js';

const route = (name: string): Route => ({ provider: { name, kind: 'sim' } as unknown as Route['provider'], model: `${name}-model`, weight: 1 });
const [a, b, c] = [route('a'), route('b'), route('c')];
const now = () => 1_000_000;
const transient = (retryAfterMs?: number) => new UpstreamError('busy', 503, true, undefined, retryAfterMs);
const retryable = (error: unknown) => error instanceof UpstreamError && error.retryable;

test('availableRoutes keeps the order and leaves out the routes still pausing (a pause ends at its last millisecond)', (t) => {
  const cooldowns = new Map([
    [routeKey(a), 1_000_001],
    [routeKey(b), 1_000_000],
  ]);
  t.deepEqual(availableRoutes([a, b, c], cooldowns, 1_000_000), [b, c]);
  t.deepEqual(availableRoutes([c, a, b], cooldowns, 1_000_001), [c, a, b]);
});

test('the first route that serves answers; the ones before it failed transiently and the later ones are not tried', async (t) => {
  const tried: string[] = [];
  const result = await tryRoutes(
    [a, b, c],
    new Map(),
    async (candidate) => {
      tried.push(candidate.provider.name);
      if (candidate === a) throw transient();
      return `served by ${candidate.provider.name}`;
    },
    retryable,
    now,
  );
  t.is(result, 'served by b');
  t.deepEqual(tried, ['a', 'b']);
});

test('a Retry-After pauses its route on the given clock, capped at maxCooldownMs; a failure without one pauses nothing', async (t) => {
  const cooldowns = new Map<string, number>();
  const failures = new Map([
    [a, transient(2_500)],
    [b, transient(3_600_000)],
    [c, transient()],
  ]);
  const error = await t.throwsAsync(tryRoutes([a, b, c], cooldowns, async (candidate) => Promise.reject(failures.get(candidate)!), retryable, now));
  t.is(error as Error | undefined, failures.get(c), 'the last failure is reported');
  t.deepEqual(Object.fromEntries(cooldowns), { [routeKey(a)]: 1_002_500, [routeKey(b)]: 1_000_000 + maxCooldownMs });
  t.is(maxCooldownMs, 300_000);
});

test('the caller decides whether the next route may be tried: a refusal it does not allow ends the loop with that failure', async (t) => {
  const tried: string[] = [];
  const permanent = new UpstreamError('bad request', 400, false);
  const error = await t.throwsAsync(
    tryRoutes(
      [a, b],
      new Map(),
      async (candidate) => {
        tried.push(candidate.provider.name);
        throw permanent;
      },
      retryable,
      now,
    ),
  );
  t.is(error, permanent);
  t.deepEqual(tried, ['a']);
});

test('a route that cannot serve the operation is skipped whatever the rule, and never hides the failure of a route that tried', async (t) => {
  const unservable = (candidate: Route) => new RouteCannotServe(candidate.provider.name, 'music');
  // Skipped even when the rule allows nothing: a cannot serve, b fails, the rule stops there.
  const permanent = new UpstreamError('bad request', 400, false);
  const tried: string[] = [];
  const stopped = await t.throwsAsync(
    tryRoutes(
      [a, b, c],
      new Map(),
      async (candidate) => {
        tried.push(candidate.provider.name);
        return Promise.reject(candidate === a ? unservable(a) : permanent);
      },
      () => false,
      now,
    ),
  );
  t.deepEqual(tried, ['a', 'b']);
  t.is(stopped, permanent);

  // a fails transiently, b and c cannot serve: a's failure is reported, not "cannot serve".
  const failure = transient();
  const reported = await t.throwsAsync(tryRoutes([a, b, c], new Map(), async (candidate) => Promise.reject(candidate === a ? failure : unservable(candidate)), retryable, now));
  t.is(reported, failure);

  // No route could serve at all: the first one's reason.
  const onlyUnservable = await t.throwsAsync(tryRoutes([b, c], new Map(), async (candidate) => Promise.reject(unservable(candidate)), retryable, now));
  t.true(onlyUnservable instanceof RouteCannotServe);
  t.is(onlyUnservable.message, 'provider "b" cannot music');
});

test('every call is reported with its attempt number, its failure and the route tried next; a route that cannot serve is not', async (t) => {
  const reports: unknown[] = [];
  const failure = transient();
  const final = new UpstreamError('bad request', 400, false);
  const d = route('d');
  await t.throwsAsync(
    tryRoutes(
      [a, b, c, d],
      new Map(),
      async (candidate) => Promise.reject(candidate === a ? failure : candidate === b ? new RouteCannotServe('b', 'embed') : final),
      retryable,
      now,
      ({ route: tried, attempt, error, next, seconds }) => {
        t.true(seconds >= 0);
        reports.push([tried.provider.name, attempt, error, next?.provider.name]);
      },
    ),
  );
  t.deepEqual(reports, [
    ['a', 1, failure, 'b'],
    ['c', 2, final, undefined],
  ]);
  const served: unknown[] = [];
  t.is(await tryRoutes([a], new Map(), async () => 'ok', retryable, now, ({ route: tried, attempt, error }) => served.push([tried.provider.name, attempt, error])), 'ok');
  t.deepEqual(served, [['a', 1, undefined]]);
});
