// What the gateway sees of its upstreams, for operators: one warn line per failed upstream call
// (chat, media, job submit/poll/download) with provider, route, model, upstream status, the
// vendor's message (shortened, secrets redacted), attempt and the fallback taken; and the
// upstream metrics (latency, time to first token, errors by status); and the recent health of
// each route for the admin API (src/observability/route-health.ts, this process's own). It is
// told each attempt of the fallback loop (route-fallback.ts), so it lives beside it. The label
// sets of the hot metrics and the routes' keys are made once and reused, so a request adds no
// allocation.
import type { Route } from '../catalog/catalog.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { HistogramSeries } from '../observability/plain-metrics.js';
import { RouteHealth } from '../observability/route-health.js';
import { upstreamStatusOf } from '../observability/upstream-status.js';
import { UpstreamError } from '../vendors/types.js';
import { routeKey, type RouteAttempt } from './route-fallback.js';

/** The vendor's message is cut to this many characters in the log line. */
export const maxLoggedMessageLength = 300;

/** Patterns that look like a credential, whatever upstream echoed them. */
const secretPatterns: readonly RegExp[] = [
  /\bBearer\s+[^\s"',;]+/gi,
  /\bsk-[A-Za-z0-9_-]{4,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\b(api[_-]?key|x-api-key|access[_-]?token|key)(["']?\s*[:=]\s*["']?)(?!\[redacted\])[^\s"',&;)\]}]+/gi,
];

/**
 * `text` without anything that looks like a secret (the configured provider keys, `Bearer …`,
 * `sk-…`, `api_key=…`), shortened to `maxLength` characters.
 */
export function redactSecrets(text: string, secrets: readonly string[], maxLength = maxLoggedMessageLength): string {
  let result = text;
  for (const secret of secrets) if (secret.length >= 4) result = result.split(secret).join('[redacted]');
  for (const pattern of secretPatterns) {
    result = result.replace(pattern, (match, name?: string, separator?: string) =>
      typeof name === 'string' && typeof separator === 'string' ? `${name}${separator}[redacted]` : match.startsWith('sk-') ? 'sk-[redacted]' : match.startsWith('AIza') ? '[redacted]' : 'Bearer [redacted]',
    );
  }
  return result.length > maxLength ? `${result.slice(0, maxLength)}…` : result;
}

export interface UpstreamFailure {
  /** chat, the media operation (images, speech, …), job_submit, job_poll, job_download. */
  readonly operation: string;
  readonly provider: string;
  /** The upstream's own model id (the route is provider:upstream_model). */
  readonly upstreamModel: string;
  /** The gateway's model id. */
  readonly model: string;
  readonly error: unknown;
  /** 1 for the first route tried by this request or job step, 2 for its first fallback… (job polls: the poll's number). */
  readonly attempt: number;
  /** The route tried next ("provider:model"), or null when none is. */
  readonly fallback: string | null;
  readonly requestId?: string;
  readonly jobId?: string;
  /** A job step retried later: in how long. */
  readonly retryInMs?: number;
}

/** The metric series of a (provider, gateway model) pair. */
export interface PairSeries {
  readonly provider: string;
  readonly model: string;
  readonly duration: HistogramSeries;
  readonly timeToFirstToken: HistogramSeries;
}

export class UpstreamObserver {
  private readonly pairs = new Map<string, PairSeries>();
  /** The series of each configured route (the catalog's own Route objects), found without building a key. */
  private readonly byRoute = new WeakMap<Route, PairSeries>();
  /** Each configured route's key ("provider:model"), made at start. */
  private readonly routeKeys = new WeakMap<Route, string>();
  private readonly secrets: readonly string[];
  /** Calls, failures and latency per route over the last minutes, in this process (GET /admin/v1/upstreams). */
  readonly health: RouteHealth;

  constructor(
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    options: { secrets: Iterable<string | undefined>; models: readonly { readonly id: string; readonly routes: readonly Route[] }[]; now?: () => number },
  ) {
    // Longest first: a key that contains another is redacted whole.
    this.secrets = [...options.secrets].filter((secret): secret is string => typeof secret === 'string' && secret.length > 0).sort((a, b) => b.length - a.length);
    for (const model of options.models) {
      for (const route of model.routes) {
        this.byRoute.set(route, this.seriesOf(route.provider.name, model.id));
        this.routeKeys.set(route, routeKey(route));
      }
    }
    this.health = new RouteHealth(options.now);
  }

  /** The series of a route of `model`: made at start, looked up by the route object. */
  seriesOfRoute(route: Route, model: string): PairSeries {
    const series = this.byRoute.get(route);
    return series !== undefined && series.model === model ? series : this.seriesOf(route.provider.name, model);
  }

  /** `text` with the configured provider keys and anything that looks like a secret redacted, shortened to `maxLength`. */
  redact(text: string, maxLength = maxLoggedMessageLength): string {
    return redactSecrets(text, this.secrets, maxLength);
  }

  /** The one series object of a (provider, gateway model) pair: made at start for every configured route, reused after. */
  seriesOf(provider: string, model: string): PairSeries {
    const key = `${provider}\n${model}`;
    let series = this.pairs.get(key);
    if (!series) {
      series = { provider, model, ...this.metrics.upstreamSeries(provider, model) };
      this.pairs.set(key, series);
    }
    return series;
  }

  /** From the call to the upstream to its first output. */
  timeToFirstToken(series: PairSeries, seconds: number): void {
    series.timeToFirstToken.observe(seconds);
  }

  /**
   * A call tryRoutes made: its duration observed and, when it failed, the failure counted and
   * logged with the route tried next.
   */
  attempted(context: { readonly operation: string; readonly model: string; readonly requestId?: string; readonly jobId?: string }, outcome: RouteAttempt): void {
    const { route } = outcome;
    this.seriesOfRoute(route, context.model).duration.observe(outcome.seconds);
    this.health.called(this.routeKeys.get(route) ?? routeKey(route), outcome.seconds);
    if (outcome.error === undefined) return;
    this.failure({
      ...context,
      provider: route.provider.name,
      upstreamModel: route.model,
      error: outcome.error,
      attempt: outcome.attempt,
      fallback: outcome.next ? routeKey(outcome.next) : null,
    });
  }

  /** A failed upstream call: counted by provider, model and status, and logged at warn. */
  failure(failure: UpstreamFailure): void {
    const status = upstreamStatusOf(failure.error);
    this.metrics.upstreamErrors.inc({ provider: failure.provider, model: failure.model, status });
    const error = failure.error as (Error & { upstreamType?: string }) | undefined;
    const message = this.redact(error instanceof Error ? error.message : String(failure.error));
    this.health.failed(`${failure.provider}:${failure.upstreamModel}`, {
      status,
      message,
      model: failure.model,
      operation: failure.operation,
      requestId: failure.requestId ?? null,
      jobId: failure.jobId ?? null,
    });
    this.logger.warn(
      {
        ...(failure.requestId === undefined ? {} : { request_id: failure.requestId }),
        ...(failure.jobId === undefined ? {} : { job_id: failure.jobId }),
        operation: failure.operation,
        provider: failure.provider,
        route: `${failure.provider}:${failure.upstreamModel}`,
        model: failure.model,
        upstream_status: status,
        ...(error instanceof UpstreamError && error.upstreamType ? { upstream_type: this.redact(error.upstreamType, 100) } : {}),
        upstream_message: message,
        attempt: failure.attempt,
        fallback: failure.fallback,
        ...(failure.retryInMs === undefined ? {} : { retry_in_ms: failure.retryInMs }),
      },
      'upstream failed',
    );
  }
}
