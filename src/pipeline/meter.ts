// What a chat request is billed for. The upstream's LAST usage report is the truth when the
// stream completed; without one (or when a cut stream's report predates most of the output)
// the produced text is counted, and the result is flagged as estimated — never billed as zero.
import type { ResultAccumulator } from '../model/accumulate.js';
import type { ChatRequest, Usage } from '../model/chat.js';
import { countTextTokens, estimateInputTokens } from '../model/token-estimate.js';

export interface Metered {
  /** Undefined: nothing to bill (the upstream failed before producing anything). */
  readonly usage: Usage | undefined;
  readonly estimated: boolean;
}

export function meter(request: ChatRequest, accumulator: ResultAccumulator, outcome: { failed: boolean; producedOutput: boolean }): Metered {
  // A report of no input and no output is no report: an upstream that streams without usage may
  // still send its usage fields as zeros (Anthropic's message_start), and answered text is never
  // billed as zero (found by `gateway reconcile`: the vendor billed what the gateway did not).
  const reported = accumulator.usage && (accumulator.usage.inputTokens > 0 || accumulator.usage.outputTokens > 0) ? accumulator.usage : undefined;
  if (outcome.failed && !outcome.producedOutput) return { usage: undefined, estimated: false };
  if (!reported) {
    const counted = countTextTokens(accumulator.producedText());
    const reasoningTokens = Math.min(countTextTokens(accumulator.reasoningText()), counted);
    return { usage: { inputTokens: estimateInputTokens(request), cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: counted, reasoningTokens }, estimated: true };
  }
  if (outcome.failed) {
    // Anthropic reports output_tokens ≈ 1 in message_start: a stream cut after it must not be
    // billed for less than what visibly arrived.
    const counted = countTextTokens(accumulator.producedText());
    if (counted > reported.outputTokens) return { usage: { ...reported, outputTokens: counted }, estimated: true };
  }
  return { usage: reported, estimated: false };
}
