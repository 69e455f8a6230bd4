// Prometheus metrics served at GET /metrics. One registry per server instance (not the
// global one) so tests can run several servers in one process; every metric is registered
// once, when the services are made, never on the request path. Label values come from the
// configuration (providers, models, job kinds) or small fixed sets (statuses, token kinds,
// refusal reasons), so the number of series is bounded. docs/operations.md lists them all.
// What every request counts (its route's count and latency, the charge, the tokens, the
// upstream call) goes through the methods below into plain-metrics.ts series, which cost an
// addition per count; the rest are prom-client's own, counted on rarer paths.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { UNITS_PER_RUB } from '../util/money.js';
import type { JobKind, JobStatus } from '../model/jobs.js';
import { PlainCounter, PlainHistogram, type CounterSeries, type HistogramSeries } from './plain-metrics.js';

const unitsPerRub = Number(UNITS_PER_RUB);

/** What the scrape-time query finds: jobs waiting or running by kind and status, and the active holds. */
export interface Backlog {
  readonly jobs: readonly { readonly kind: JobKind; readonly status: JobStatus; readonly count: number; readonly oldestCreatedAt: number }[];
  readonly activeHolds: number;
}

/** The job statuses the queue gauges report: the ones still to be worked on. */
export const queuedJobStatuses = ['queued', 'in_progress'] as const;
const jobKindLabels: readonly JobKind[] = ['video', 'video_upscale', 'music', 'response'];

/** Reasons of gateway_refusals_total that exist (at 0) from the start. */
export const refusalReasons = ['rate_limit', 'budget', 'tokens_per_minute', 'in_flight'] as const;

interface RouteSeries {
  readonly latency: HistogramSeries;
  readonly byStatus: Map<number, CounterSeries>;
}

interface ModelSeries {
  readonly chargedUnits: CounterSeries;
  readonly chargedRub: CounterSeries;
  readonly input: CounterSeries;
  readonly cached: CounterSeries;
  readonly output: CounterSeries;
  readonly reasoning: CounterSeries;
}

/** A scrape waits this long for the backlog query; past it the gauges keep their last values. */
const backlogTimeoutMs = 2_000;

export class Metrics {
  readonly registry = new Registry();
  // The metrics of every request (plain-metrics.ts: counted in plain numbers, read at scrape time),
  // counted through the methods below.
  private readonly requests = new PlainCounter(this.registry, 'gateway_http_requests_total', 'HTTP requests by route template, method and status', ['route', 'method', 'status']);
  private readonly latency = new PlainHistogram(this.registry, 'gateway_http_request_duration_seconds', 'Time from request to the end of the response, by route template', ['route', 'method'], [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
  ]);
  private readonly chargedUnits = new PlainCounter(this.registry, 'gateway_charged_units_total', 'Money charged, in units of 0.0001 RUB, by model', ['model']);

  readonly recordsDropped = new Counter({
    name: 'gateway_records_dropped_total',
    help: 'Request-log and usage rows finally lost (backlog full during a database outage, refused batch, stop deadline), by table',
    labelNames: ['table'] as const,
    registers: [this.registry],
  });
  readonly pendingSettles = new Gauge({
    name: 'gateway_pending_settles',
    help: 'Settles and releases of finished requests waiting for the database to come back',
    registers: [this.registry],
  });
  readonly settlesDropped = new Counter({
    name: 'gateway_settles_dropped_total',
    help: 'Settles not kept for retry because the pending list was full (or the stop deadline passed): their holds expire via the sweeps, uncharged',
    registers: [this.registry],
  });

  private readonly chargedRub = new PlainCounter(this.registry, 'gateway_charged_rub_total', 'Money charged, in RUB as a float (for dashboards only: the ledger keeps exact units), by model', ['model']);
  private readonly tokens = new PlainCounter(this.registry, 'gateway_tokens_total', 'Chat tokens by model and kind: input (cached included), cached, output (reasoning included), reasoning', ['model', 'kind']);
  private readonly upstreamDuration = new PlainHistogram(
    this.registry,
    'gateway_upstream_duration_seconds',
    'One upstream call, from sending it to the end of its answer or stream (failures included), by provider and gateway model',
    ['provider', 'model'],
    [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300],
  );
  private readonly upstreamTtft = new PlainHistogram(
    this.registry,
    'gateway_upstream_ttft_seconds',
    'Time to first token of a chat upstream call (every chat call streams upstream), by provider and gateway model',
    ['provider', 'model'],
    [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60],
  );
  readonly upstreamErrors = new Counter({
    name: 'gateway_upstream_errors_total',
    help: 'Failed upstream calls by provider, gateway model and status (HTTP status, timeout, connect_error, stream_error, error)',
    labelNames: ['provider', 'model', 'status'] as const,
    registers: [this.registry],
  });
  readonly refusals = new Counter({
    name: 'gateway_refusals_total',
    help: 'Requests refused before any work by a limit, by reason (rate_limit, budget, tokens_per_minute, in_flight)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** The series of a model's charge and tokens, looked up once per model. */
  private readonly byModel = new Map<string, ModelSeries>();

  /** The series of each route template, method (and status): looked up without building a key. */
  private readonly byRoute = new Map<string, Map<string, RouteSeries>>();

  /** A finished HTTP request: counted by route template, method and status, its duration observed. */
  countRequest(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.byRoute.set(route, byMethod);
    }
    let series = byMethod.get(method);
    if (!series) {
      series = { latency: this.latency.series(route, method), byStatus: new Map() };
      byMethod.set(method, series);
    }
    let count = series.byStatus.get(status);
    if (!count) {
      count = this.requests.series(route, method, String(status));
      series.byStatus.set(status, count);
    }
    count.inc();
    series.latency.observe(seconds);
  }

  /** A request's charge (in units, and in RUB as a float for dashboards only: the ledger and charged_units stay exact). */
  countCharge(model: string, units: number): void {
    const series = this.seriesOfModel(model);
    series.chargedUnits.inc(units);
    series.chargedRub.inc(units / unitsPerRub);
  }

  /** A chat's tokens, by kind. */
  countTokens(model: string, usage: { readonly inputTokens: number; readonly cachedInputTokens: number; readonly outputTokens: number; readonly reasoningTokens: number }): void {
    const series = this.seriesOfModel(model);
    series.input.inc(usage.inputTokens);
    if (usage.cachedInputTokens > 0) series.cached.inc(usage.cachedInputTokens);
    series.output.inc(usage.outputTokens);
    if (usage.reasoningTokens > 0) series.reasoning.inc(usage.reasoningTokens);
  }

  /** The series of an upstream call's duration and time to first token, for a (provider, gateway model) pair. */
  upstreamSeries(provider: string, model: string): { readonly duration: HistogramSeries; readonly timeToFirstToken: HistogramSeries } {
    return { duration: this.upstreamDuration.series(provider, model), timeToFirstToken: this.upstreamTtft.series(provider, model) };
  }

  private seriesOfModel(model: string): ModelSeries {
    let series = this.byModel.get(model);
    if (!series) {
      series = {
        chargedUnits: this.chargedUnits.series(model),
        chargedRub: this.chargedRub.series(model),
        input: this.tokens.series(model, 'input'),
        cached: this.tokens.series(model, 'cached'),
        output: this.tokens.series(model, 'output'),
        reasoning: this.tokens.series(model, 'reasoning'),
      };
      this.byModel.set(model, series);
    }
    return series;
  }

  private backlogSource: { query: () => Promise<Backlog>; now: () => number; onError: (error: unknown) => void } | undefined;
  private backlogScrape: Promise<void> | undefined;
  // The three backlog gauges are filled by one query per scrape, started by whichever of them
  // is collected first and shared by the others.
  readonly jobs = new Gauge({
    name: 'gateway_jobs',
    help: 'Async jobs still to be worked on, by kind and status (queued, in_progress), counted at scrape time',
    labelNames: ['kind', 'status'] as const,
    registers: [this.registry],
    collect: () => this.scrapeBacklog(),
  });
  readonly jobsOldestAge = new Gauge({
    name: 'gateway_jobs_oldest_age_seconds',
    help: 'Age of the oldest job still to be worked on, by kind and status (0 when there is none), at scrape time',
    labelNames: ['kind', 'status'] as const,
    registers: [this.registry],
    collect: () => this.scrapeBacklog(),
  });
  readonly activeHolds = new Gauge({
    name: 'gateway_active_holds',
    help: 'Holds not yet settled or released (requests and jobs in flight, and holds waiting for their sweep), at scrape time',
    registers: [this.registry],
    collect: () => this.scrapeBacklog(),
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'gateway_' });
    for (const reason of refusalReasons) this.refusals.inc({ reason }, 0);
  }

  /** The query the backlog gauges are filled from at scrape time (none: they stay at 0). */
  watchBacklog(query: () => Promise<Backlog>, now: () => number, onError: (error: unknown) => void): void {
    this.backlogSource = { query, now, onError };
  }

  private scrapeBacklog(): Promise<void> {
    this.backlogScrape ??= this.readBacklog().finally(() => {
      // Shared by the gauges of this scrape only: the next scrape queries again.
      setImmediate(() => (this.backlogScrape = undefined));
    });
    return this.backlogScrape;
  }

  private async readBacklog(): Promise<void> {
    const source = this.backlogSource;
    if (!source) return;
    let backlog: Backlog;
    let timer: NodeJS.Timeout | undefined;
    try {
      backlog = await Promise.race([
        source.query(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the backlog query took more than ${backlogTimeoutMs} ms`)), backlogTimeoutMs);
        }),
      ]);
    } catch (error) {
      source.onError(error);
      return;
    } finally {
      clearTimeout(timer);
    }
    const now = source.now();
    for (const kind of jobKindLabels) {
      for (const status of queuedJobStatuses) {
        const row = backlog.jobs.find((entry) => entry.kind === kind && entry.status === status);
        this.jobs.set({ kind, status }, row?.count ?? 0);
        this.jobsOldestAge.set({ kind, status }, row ? Math.max(0, now - row.oldestCreatedAt) / 1000 : 0);
      }
    }
    this.activeHolds.set(backlog.activeHolds);
  }
}
