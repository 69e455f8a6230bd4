// Counters and histograms of the request path, counted in plain numbers and read by
// prom-client's registry only when /metrics is scraped.
//
// prom-client checks and hashes the labels of every inc and observe, and a histogram's observe
// makes a closure; a chat request made eight such calls (its route's count and latency, the
// upstream call's duration and time to first token, the charge, the tokens). Taking those
// calls out made a chat request 5-9% cheaper in CPU (bench/alternate.mjs, docs/performance.md).
// Here a caller looks up the series of its label values (`series(...)`, a map lookup; callers
// with fixed labels keep the series they got) and an inc or observe is an addition.
//
// The registry reads these through the same interface as its own metrics (name, help, type,
// get, reset), so the exposition is the one prom-client writes for its Counter and Histogram:
// a series appears once it has been counted, labels in the order of `labelNames`, a
// histogram's `le` first.
import type { Registry } from 'prom-client';

type Labels = Readonly<Record<string, string>>;

interface ExportedValue {
  readonly value: number;
  /** A histogram's `le` is the bucket's bound as a number, as prom-client gives it. */
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
  readonly sharedLabels?: Labels;
}

interface Exported {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  readonly values: ExportedValue[];
}

export class CounterSeries {
  value = 0;
  counted = false;

  constructor(readonly labels: Labels) {}

  inc(by = 1): void {
    this.value += by;
    this.counted = true;
  }
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative): index i counts values ≤ bounds[i] and > bounds[i - 1]. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  /** Not a finite number: not counted (prom-client would throw, on the request path). */
  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    const { bounds } = this;
    for (let index = 0; index < bounds.length; index++) {
      if (value <= bounds[index]!) {
        this.counts[index]!++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }
}

abstract class PlainMetric<Series> {
  readonly aggregator = 'sum';
  protected readonly all = new Map<string, Series>();

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    // The registry takes any object with a name, help, type, get() and reset().
    registry.registerMetric(this as never);
  }

  /** The series of these label values, given in the order of labelNames: the same object every time. */
  series(...values: string[]): Series {
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    let found = this.all.get(key);
    if (found === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, index) => (labels[name] = values[index]!));
      found = this.create(labels);
      this.all.set(key, found);
    }
    return found;
  }

  protected abstract create(labels: Labels): Series;
}

export class PlainCounter extends PlainMetric<CounterSeries> {
  readonly type = 'counter';

  protected create(labels: Labels): CounterSeries {
    return new CounterSeries(labels);
  }

  async get(): Promise<Exported> {
    const values: ExportedValue[] = [];
    for (const series of this.all.values()) if (series.counted) values.push({ value: series.value, labels: series.labels });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    for (const series of this.all.values()) {
      series.value = 0;
      series.counted = false;
    }
  }
}

export class PlainHistogram extends PlainMetric<HistogramSeries> {
  readonly type = 'histogram';

  constructor(
    registry: Registry,
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly buckets: readonly number[],
  ) {
    super(registry, name, help, labelNames);
  }

  protected create(labels: Labels): HistogramSeries {
    return new HistogramSeries(labels, this.buckets);
  }

  /** What the text exposition reads: each line's own labels, the series' labels beside them. */
  async getForPromString(): Promise<Exported> {
    const values: ExportedValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const series of this.all.values()) {
      if (series.count === 0) continue;
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += series.counts[index]!;
        values.push({ value: cumulative, labels: { le: bound }, metricName: bucketName, sharedLabels: series.labels });
      });
      values.push({ value: series.count, labels: { le: '+Inf' }, metricName: bucketName, sharedLabels: series.labels });
      values.push({ value: series.sum, labels: {}, metricName: `${this.name}_sum`, sharedLabels: series.labels });
      values.push({ value: series.count, labels: {}, metricName: `${this.name}_count`, sharedLabels: series.labels });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** The JSON form (registry.getMetricsAsJSON): each line's labels with the series' own. */
  async get(): Promise<Exported> {
    const exported = await this.getForPromString();
    return { ...exported, values: exported.values.map(({ sharedLabels, ...value }) => ({ ...value, labels: { ...value.labels, ...sharedLabels } })) };
  }

  reset(): void {
    for (const series of this.all.values()) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
