// The response object of a background response (`background: true`) as GET /v1/responses/{id}
// shows it: queued or running (no output yet), failed or cancelled (with its error), or
// completed (the answer itself, result.ts, with the job's id). A background response is kept
// until it is read: `store` is true, as OpenAI requires of background mode.
import type { ChatRequest } from '../../model/chat.js';
import { responseObject, type ResponseError } from './items.js';

export type BackgroundStatus = 'queued' | 'in_progress' | 'failed' | 'cancelled';

export function encodeBackgroundResponse(request: ChatRequest, id: string, createdAt: number, status: BackgroundStatus, error: ResponseError | null = null) {
  return { ...responseObject(request, id, createdAt), status, error, background: true, store: true };
}

/** The completed answer (encodeResponsesResult's object) under the background response's own id. */
export function completedBackgroundResponse(answer: Record<string, unknown>, id: string): Record<string, unknown> {
  return { ...answer, id, background: true, store: true };
}

/**
 * The body a background request runs as: the same request without the two fields only
 * background mode may carry (`background`, and `store: true`, which it implies).
 */
export function foregroundBody(body: Record<string, unknown>): Record<string, unknown> {
  const { background: _background, store, ...rest } = body;
  return store === true ? rest : { ...rest, ...(store === undefined ? {} : { store }) };
}
