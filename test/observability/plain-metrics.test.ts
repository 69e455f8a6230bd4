// The plain counters and histograms must expose exactly what prom-client's own Counter and
// Histogram expose for the same counts: dashboards and alerts read these lines.
import test from 'ava';
import { Counter, Histogram, Registry } from 'prom-client';
import { PlainCounter, PlainHistogram } from '../../src/observability/plain-metrics.js';

const buckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const observed = [0.0004, 0.0005, 0.003, 0.003, 0.07, 1.5, 200, 0];

test('a plain histogram is exposed line for line as prom-client exposes a Histogram', async (t) => {
  const theirs = new Registry();
  const reference = new Histogram({ name: 'h_seconds', help: 'Help with "quotes" and \\ a backslash', labelNames: ['route', 'method'] as const, buckets, registers: [theirs] });
  const ours = new Registry();
  const plain = new PlainHistogram(ours, 'h_seconds', 'Help with "quotes" and \\ a backslash', ['route', 'method'], buckets);
  for (const value of observed) {
    reference.observe({ route: '/v1/chat/completions', method: 'POST' }, value);
    plain.series('/v1/chat/completions', 'POST').observe(value);
  }
  reference.observe({ route: '/a"b', method: 'GET' }, 0.2);
  plain.series('/a"b', 'GET').observe(0.2);
  // A series looked up but never observed is not exposed (prom-client has none until observed).
  plain.series('/never', 'GET');
  t.is(await ours.metrics(), await theirs.metrics());
  // The JSON form too, but for prom-client's exemplar fields (exemplars are not enabled).
  const withoutExemplars = (metrics: unknown) => JSON.parse(JSON.stringify(metrics, (name, value) => (name === 'exemplar' ? undefined : value)));
  t.deepEqual(withoutExemplars(await ours.getMetricsAsJSON()), withoutExemplars(await theirs.getMetricsAsJSON()));
});

test('a plain counter is exposed as prom-client exposes a Counter, increments by any amount', async (t) => {
  const theirs = new Registry();
  const reference = new Counter({ name: 'c_total', help: 'Requests', labelNames: ['route', 'method', 'status'] as const, registers: [theirs] });
  const ours = new Registry();
  const plain = new PlainCounter(ours, 'c_total', 'Requests', ['route', 'method', 'status']);
  reference.inc({ route: '/r', method: 'POST', status: '200' });
  reference.inc({ route: '/r', method: 'POST', status: '200' }, 2.5);
  reference.inc({ route: '/r', method: 'POST', status: '402' });
  const ok = plain.series('/r', 'POST', '200');
  ok.inc();
  ok.inc(2.5);
  plain.series('/r', 'POST', '402').inc();
  plain.series('/r', 'POST', '500');
  t.is(await ours.metrics(), await theirs.metrics());
  t.is(plain.series('/r', 'POST', '200'), ok, 'the same series object for the same labels');
});

test('reset zeroes the series callers hold; a value that is not finite is not counted', async (t) => {
  const registry = new Registry();
  const histogram = new PlainHistogram(registry, 'h_seconds', 'h', ['model'], [1, 2]);
  const series = histogram.series('m');
  series.observe(1.5);
  series.observe(Number.NaN);
  series.observe(Number.POSITIVE_INFINITY);
  t.is(series.count, 1);
  t.is(series.sum, 1.5);
  registry.resetMetrics();
  t.is(await registry.metrics(), '# HELP h_seconds h\n# TYPE h_seconds histogram\n');
  series.observe(0.5);
  t.regex(await registry.metrics(), /^h_seconds_bucket\{le="1",model="m"\} 1$/m);
});
