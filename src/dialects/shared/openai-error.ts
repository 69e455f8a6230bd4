// The OpenAI-style error body: Chat Completions, Responses and every media, jobs, files and
// list route answer it. `{"error": {"message", "type", "param", "code"}}`, plus a 422's
// pydantic-style `detail` next to it (DESIGN.md §2.3).
import type { GatewayError } from '../../errors/gateway-error.js';

export function encodeOpenaiError(error: GatewayError, _requestId: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    error: { message: error.message, type: error.type, param: error.options.param ?? null, code: error.bodyCode },
  };
  if (error.options.detail) body.detail = error.options.detail;
  return body;
}
