// Gemini `finishReason` (and a prompt's `promptFeedback.blockReason`) → FinishReason; the raw
// value travels next to it. Gemini says STOP after function calls too: the parser makes that
// `tool_calls` when the answer called a tool.
import type { FinishReason } from '../../model/chat.js';

const filtered = new Set(['SAFETY', 'RECITATION', 'LANGUAGE', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION', 'OTHER_BLOCK_REASON']);
const failedCalls = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS']);

export function finishReasonOf(raw: string, calledTool: boolean): FinishReason {
  if (raw === 'MAX_TOKENS') return 'length';
  if (filtered.has(raw)) return 'content_filter';
  if (failedCalls.has(raw)) return 'error';
  // STOP, FINISH_REASON_UNSPECIFIED, OTHER and values this adapter does not know.
  return calledTool ? 'tool_calls' : 'stop';
}
