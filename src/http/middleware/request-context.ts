// The first middleware: request id, error encoding and observation (access log line,
// metrics, request log row). Errors thrown anywhere below are encoded here, in the caller's
// dialect, so no route writes an error body itself.
import type { Next } from 'koa';
import { InsufficientBalanceError, KeyNotLiveError } from '../../billing/errors.js';
import { IdempotencyConflictError } from '../../jobs/job-store.js';
import { formatRub, unitsToSql } from '../../billing/money.js';
import { ModelNotFoundError } from '../../catalog/catalog.js';
import { ContextWindowExceededError } from '../../pipeline/context-window.js';
import { isDatabaseUnavailable } from '../../db/errors.js';
import type { ServerServices } from '../../services.js';
import { RequestValidationError } from '../../validation/zod-details.js';
import { newRequestId } from '../../util/ids.js';
import { ApiError, databaseUnavailable, dialectForPath, encodeError, invalidKey, notFound, validationFailed } from '../errors.js';
import type { Context } from '../state.js';

/** Turns known domain errors into API errors; anything else is a 500 that is logged. */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof RequestValidationError) return validationFailed(error.details);
  if (error instanceof InsufficientBalanceError) {
    return new ApiError(402, `Insufficient balance: this request needs ${formatRub(error.neededUnits)} RUB and ${formatRub(error.availableUnits)} RUB is available. ${error.hint ? `${error.hint} ` : ''}Top up the account.`, {
      code: 'insufficient_balance',
    });
  }
  if (error instanceof KeyNotLiveError) return invalidKey();
  if (error instanceof ContextWindowExceededError) return contextLengthExceeded(error);
  if (error instanceof ModelNotFoundError) return notFound(error.message, 'model_not_found', 'model');
  if (error instanceof IdempotencyConflictError) return new ApiError(409, error.message, { code: 'idempotency_key_reused', param: 'idempotency_key' });
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  const status = (error as { status?: number; expose?: boolean }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Body parser refusals (malformed JSON, body too large, wrong charset) carry their status.
    const message =
      status === 413 ? 'Request body is too large.' : status === 405 ? (error as Error).message : `Malformed request: ${(error as Error).message}`;
    return new ApiError(status, message, { code: status === 413 ? 'request_too_large' : 'invalid_request' });
  }
  return undefined;
}

/** Worded as OpenAI and Anthropic word it: clients (and agents that compact history) parse these messages. */
function contextLengthExceeded(error: ContextWindowExceededError): ApiError {
  const { contextWindow, inputTokens, requestedOutputTokens, inputField } = error;
  if (requestedOutputTokens === undefined) {
    return new ApiError(
      400,
      `This model's maximum context length is ${contextWindow} tokens. However, your ${inputField} resulted in ${inputTokens} tokens. Please reduce the length of the ${inputField}.`,
      { code: 'context_length_exceeded', param: inputField, anthropicMessage: `prompt is too long: ${inputTokens} tokens > ${contextWindow} maximum` },
    );
  }
  return new ApiError(
    400,
    `This model's maximum context length is ${contextWindow} tokens. However, you requested ${inputTokens + requestedOutputTokens} tokens (${inputTokens} in the ${inputField}, ${requestedOutputTokens} in the completion). Please reduce the length of the ${inputField} or completion.`,
    {
      code: 'context_length_exceeded',
      param: inputField,
      anthropicMessage: `input length and \`max_tokens\` exceed context limit: ${inputTokens} + ${requestedOutputTokens} > ${contextWindow}, decrease input length or \`max_tokens\` and try again`,
    },
  );
}

export function requestContext(services: ServerServices) {
  const { logger, metrics, requestLog } = services;
  return async function requestContextMiddleware(ctx: Context, next: Next): Promise<void> {
    const requestId = newRequestId();
    ctx.state.requestId = requestId;
    ctx.state.startedAt = process.hrtime.bigint();
    ctx.state.chargedUnits = 0n;
    ctx.set('x-request-id', requestId);
    ctx.set('request-id', requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound(`Unknown endpoint: ${ctx.method} ${ctx.path}`, 'unknown_endpoint');
    } catch (error) {
      let apiError = toApiError(error);
      if (!apiError) {
        logger.error({ err: error, request_id: requestId }, 'unhandled error');
        apiError = new ApiError(500, `Internal error; quote request id ${requestId} to the operator.`, { type: 'server_error', shouldRetry: false });
      }
      if (ctx.res.headersSent) {
        // A stream was already committed: nothing but closing it is left to do.
        logger.error({ err: error, request_id: requestId }, 'error after the response started');
        ctx.res.end();
        return;
      }
      ctx.status = apiError.status;
      ctx.body = encodeError(apiError, dialectForPath(ctx.path), requestId);
      for (const [name, value] of Object.entries(apiError.options.headers ?? {})) ctx.set(name, value);
      if (apiError.options.shouldRetry !== undefined) ctx.set('x-should-retry', String(apiError.options.shouldRetry));
    } finally {
      const durationUs = Number((process.hrtime.bigint() - ctx.state.startedAt) / 1000n);
      const route = ctx._matchedRoute ?? 'unmatched';
      const key = ctx.state.apiKey;
      metrics.requests.inc({ route, method: ctx.method, status: String(ctx.status) });
      metrics.latency.observe({ route, method: ctx.method }, durationUs / 1e6);
      if (ctx.state.chargedUnits > 0n) metrics.chargedUnits.inc({ model: ctx.state.model ?? 'none' }, Number(ctx.state.chargedUnits));
      logger.info({
        request_id: requestId,
        method: ctx.method,
        route,
        path: ctx.path,
        status: ctx.status,
        duration_ms: durationUs / 1000,
        key_id: key?.id ?? null,
        account_id: key?.accountId ?? null,
        model: ctx.state.model ?? null,
        charged_units: Number(ctx.state.chargedUnits),
      }, 'request');
      if (ctx.path.startsWith('/v1/')) {
        requestLog.record({
          request_id: requestId,
          account_id: key?.accountId ?? null,
          key_id: key?.id ?? null,
          method: ctx.method,
          route,
          model: ctx.state.model ?? null,
          status: ctx.status,
          duration_us: durationUs,
          charged_units: unitsToSql(ctx.state.chargedUnits),
          created_at: Date.now(),
        });
      }
    }
  };
}
