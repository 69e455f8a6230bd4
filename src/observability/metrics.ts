// Prometheus metrics served at GET /metrics. One registry per server instance (not the
// global one) so tests can run several servers in one process.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'Time from request to the end of the response, by route template',
    labelNames: ['route', 'method'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  readonly chargedUnits = new Counter({
    name: 'gateway_charged_units_total',
    help: 'Money charged, in units of 0.0001 RUB, by model',
    labelNames: ['model'] as const,
    registers: [this.registry],
  });

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

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'gateway_' });
  }
}
