// The gateway's Chat Completions extension for reasoning. Chat has no standard slot for
// thinking, so an assistant message carries
//   reasoning_content: "…"            the reasoning text, joined (what most clients display), and
//   reasoning_details: [              the lossless list, in order, which clients send back as is:
//     {type: "reasoning.text", text, signature?},   one per reasoning block (Anthropic thinking)
//     {type: "reasoning.encrypted", data}           one per redacted block (redacted_thinking)
//   ]
// The names follow OpenRouter's, so clients written for it keep working. In a stream,
// reasoning_content arrives in pieces and reasoning_details once, whole, before the finish
// chunk (see stream.ts). A request may send either back; reasoning_details wins (it alone
// carries signatures), reasoning_content alone becomes unsigned reasoning.
import type { ReasoningPart, RedactedReasoningPart } from '../../model/chat.js';

export type ReasoningDetail =
  | { type: 'reasoning.text'; text: string; signature?: string }
  | { type: 'reasoning.encrypted'; data: string };

export function toReasoningDetail(part: ReasoningPart | RedactedReasoningPart): ReasoningDetail {
  return part.type === 'reasoning'
    ? { type: 'reasoning.text', text: part.text, ...(part.signature ? { signature: part.signature } : {}) }
    : { type: 'reasoning.encrypted', data: part.data };
}
