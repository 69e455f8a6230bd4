// The first middleware: request id, error encoding and observation (access log line,
// metrics, request log row). Errors thrown anywhere below become catalog errors
// (src/errors/to-gateway-error.ts) and are encoded here in the shape the route table gives
// the route (src/http/error-shape.ts), so no route writes an error body itself.
import type { Next } from 'koa';
import { GatewayError } from '../../errors/gateway-error.js';
import { toGatewayError } from '../../errors/to-gateway-error.js';
import type { ApiKey } from '../../auth/api-keys.js';
import { requestLogRow } from '../../observability/request-log-row.js';
import { requestSourceOf } from '../../observability/request-source.js';
import type { ServerServices } from '../../services.js';
import { newRequestId } from '../../util/ids.js';
import { malformedHttpRequest } from '../parser-refusals.js';
import type { ErrorShapeFor } from '../error-shape.js';
import type { Context } from '../state.js';

/** What a request was, read off its context when it was answered. */
interface Observation {
  readonly requestId: string;
  readonly method: string;
  readonly route: string;
  readonly path: string;
  readonly status: number;
  readonly durationUs: number;
  /** When it was answered (services.now()). */
  readonly at: number;
  readonly key: ApiKey | undefined;
  readonly model: string | undefined;
  readonly provider: string | undefined;
  readonly chargedUnits: bigint;
  readonly failure: GatewayError | undefined;
}

export function requestContext(services: ServerServices, errorShapeFor: ErrorShapeFor) {
  const { logger, metrics, requestLog } = services;

  /** The access line, the metrics and the request-log row of a request that was answered. */
  function observe(seen: Observation): void {
    try {
      writeObservation(seen);
    } catch (error) {
      // Run outside any request: a throw here would end the process.
      logger.error({ err: error, request_id: seen.requestId }, 'observing a request failed');
    }
  }
  function writeObservation(seen: Observation): void {
    const { requestId, route, key } = seen;
    metrics.countRequest(route, seen.method, seen.status, seen.durationUs / 1e6);
    if (seen.chargedUnits > 0n) metrics.countCharge(seen.model ?? 'none', Number(seen.chargedUnits));
    logger.info({
      request_id: requestId,
      method: seen.method,
      route,
      path: seen.path,
      status: seen.status,
      duration_ms: seen.durationUs / 1000,
      key_id: key?.id ?? null,
      account_id: key?.accountId ?? null,
      model: seen.model ?? null,
      provider: seen.provider ?? null,
      charged_units: Number(seen.chargedUnits),
    }, 'request');
    // The cabinet's requests through the account's cabinet key are logged too: its playground
    // charges name their key in the history by this row (src/cabinet-api/history.ts).
    const source = requestSourceOf(seen.path);
    if (source === 'api' || (source === 'cabinet' && key !== undefined)) {
      requestLog.record(requestLogRow({ ...seen, accountId: key?.accountId ?? null, keyId: key?.id ?? null, source }));
    }
  }

  return async function requestContextMiddleware(ctx: Context, next: Next): Promise<void> {
    const requestId = newRequestId();
    ctx.state.requestId = requestId;
    ctx.state.startedAt = process.hrtime.bigint();
    ctx.state.chargedUnits = 0n;
    // A header Node does not know arrives as one string (repeated ones joined), never an array.
    const trace = (ctx.state.trace = services.tracer.startRequest(ctx.method, ctx.path, ctx.req.headers.traceparent as string | undefined));
    ctx.set('x-request-id', requestId);
    ctx.set('request-id', requestId);
    try {
      // HTTP/1.1 requires Host. Node's own check (requireHostHeader, turned off in server.ts)
      // would answer a bare 400 without a body; this one answers the catalog's error.
      if (ctx.req.headers.host === undefined && ctx.req.httpVersion === '1.1') {
        throw malformedHttpRequest('it has no Host header');
      }
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new GatewayError('unknown_endpoint', `Unknown endpoint: ${ctx.method} ${ctx.path}`);
    } catch (error) {
      let refusal = toGatewayError(error, 'http');
      if (refusal?.code === 'storage_unavailable' || refusal?.code === 'file_content_missing') {
        // The client's message does not name the store; the operator's log does (the key, the store, why).
        logger.error({ err: error, request_id: requestId }, (error as Error).message);
      }
      if (!refusal) {
        logger.error({ err: error, request_id: requestId }, 'unhandled error');
        refusal = new GatewayError('internal_error', `Internal error; quote request id ${requestId} to the operator.`);
      }
      if (ctx.res.headersSent) {
        // A stream was already committed: nothing but closing it is left to do.
        logger.error({ err: error, request_id: requestId }, 'error after the response started');
        ctx.res.end();
        return;
      }
      ctx.state.failure = refusal;
      ctx.status = refusal.status;
      ctx.body = errorShapeFor(ctx._matchedRoute, ctx.path)(refusal, requestId);
      for (const [name, value] of Object.entries(refusal.options.headers ?? {})) ctx.set(name, value);
      const retryable = refusal.retryable;
      if (retryable !== undefined) ctx.set('x-should-retry', String(retryable));
    } finally {
      const durationUs = Number((process.hrtime.bigint() - ctx.state.startedAt) / 1000n);
      // Everything observed now; written down after the response has left (setImmediate runs
      // once Koa has handed the body to the socket): the access line, the request-log row and
      // the metrics are no part of what the client waits for (6% of a non-stream answer's
      // latency, docs/performance.md). Nothing is lost by the wait: the next request is read
      // after it, and a stop closes the server before the request log.
      const observation: Observation = {
        requestId,
        method: ctx.method,
        route: ctx._matchedRoute ?? 'unmatched',
        path: ctx.path,
        status: ctx.status,
        durationUs,
        at: services.now(),
        key: ctx.state.apiKey,
        model: ctx.state.model,
        provider: ctx.state.provider,
        chargedUnits: ctx.state.chargedUnits,
        failure: ctx.state.failure,
      };
      trace.end(observation);
      setImmediate(observe, observation);
    }
  };
}
