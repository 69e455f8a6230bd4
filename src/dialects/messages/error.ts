// Anthropic's error body, for /v1/messages*: `{"type": "error", "error": {"type", "message"},
// "request_id"}` with Anthropic's types (404 not_found_error, 402 billing_error, 5xx api_error)
// and, where clients parse Anthropic's own wording (context length), its message.
import type { GatewayError } from '../../errors/gateway-error.js';

export function encodeAnthropicError(error: GatewayError, requestId: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: 'error',
    error: { type: error.anthropicType, message: error.options.anthropicMessage ?? error.message },
    request_id: requestId,
  };
  if (error.options.detail) body.detail = error.options.detail;
  return body;
}
