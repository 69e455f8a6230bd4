// TypeSafe System One (wire-formats.md §6): one JSON POST to `${baseUrl}/v1/systemone` (the
// base may already end in /v1) with a state and named typed questions; the answers come back
// keyed by question name and are passed through untouched, refusals included: a refusal is a
// per-question outcome for the client to read, not a failure of the call.
import type { DecisionRequest, DecisionResult } from '../../model/media.js';
import { arrayOf, countOf, isObject, objectOf, stringOf } from '../shared/json.js';
import { errorFromResponse, isRetryableStatus } from '../shared/upstream-errors.js';
import { UpstreamError } from '../types.js';
import type { MediaAdapter, MediaOperation } from '../media-types.js';
import { bearer, defined, invalidResponse, joinVersioned, jsonOf } from '../shared/wire.js';

export const decisionOperation: MediaOperation<DecisionRequest, DecisionResult> = {
  build: (request, target) => ({
    url: joinVersioned(target.baseUrl, 'v1', '/systemone'),
    method: 'POST',
    headers: bearer(target.apiKey),
    body: {
      json: defined({
        model: target.model,
        state: request.state,
        questions: request.questions,
        session_id: request.sessionId,
        user: request.user,
      }),
    },
  }),
  parse: (response, _request, target) => {
    const body = jsonOf(response, 'decision');
    if (!isObject(body) || !isObject(body.answers)) throw invalidResponse('the upstream\'s decision answer has no answers object');
    return {
      answers: body.answers,
      inputTokens: countOf(objectOf(body.usage)?.input_tokens),
      model: stringOf(body.model) ?? target.model,
    };
  },
};

/**
 * FastAPI error bodies: `{detail: [{type, loc, msg, input}]}` for validation (422), `{detail: "…"}`
 * otherwise; anything else (proxies, OpenAI-style gateways) through the common reader.
 */
export function parseSystemOneError(status: number, bodyText: string): UpstreamError {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return errorFromResponse(status, bodyText);
  }
  const detail = isObject(body) ? body.detail : undefined;
  if (typeof detail === 'string') return new UpstreamError(detail, status, isRetryableStatus(status));
  const first = objectOf(arrayOf(detail)[0]);
  const message = stringOf(first?.msg);
  if (!first || message === undefined) return errorFromResponse(status, bodyText);
  const location = arrayOf(first.loc).filter((part) => typeof part === 'string' || typeof part === 'number');
  const more = arrayOf(detail).length - 1;
  return new UpstreamError(
    `${location.length > 0 ? `${location.join('.')}: ` : ''}${message}${more > 0 ? ` (and ${more} more)` : ''}`,
    status,
    // A 422 is the request's own fault: the same body fails the same way anywhere.
    status !== 422 && isRetryableStatus(status),
    stringOf(first.type) ?? 'validation_error',
  );
}

export const systemOneAdapter: MediaAdapter = {
  kind: 'system-one',
  decide: decisionOperation,
  parseError: parseSystemOneError,
};
