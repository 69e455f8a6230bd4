// Reasoning effort → Gemini's thinkingConfig. Gemini 2.5 models take a token budget
// (`thinkingBudget`: 0 turns thinking off where the model allows it, -1 is dynamic); Gemini 3
// models take a level (`thinkingLevel`: minimal, low, medium, high — which ones depends on the
// model, and the catalog lists only those). Thoughts are asked for (`includeThoughts`) whenever
// the model reasons, so the client sees reasoning as from other upstreams.
import type { ChatRequest, ReasoningEffort } from '../../model/chat.js';
import { budgetForEffort } from '../../model/reasoning.js';
import type { UpstreamTarget } from '../types.js';

/** Whether a model takes thinking levels (Gemini 3 and later) rather than budgets. */
export function takesThinkingLevel(model: string): boolean {
  return /gemini-([3-9]|\d{2,})/.test(model);
}

const levels: Record<ReasoningEffort, string> = { off: 'minimal', minimal: 'minimal', low: 'low', medium: 'medium', high: 'high', xhigh: 'high', max: 'high' };

/**
 * The thinkingConfig of a request, undefined for a model that does not reason (the catalog
 * lists no effort). Without an effort the model's default applies (dynamic thinking), thoughts
 * included. Budgets come from the shared effort table, kept below the output budget (which
 * includes thinking); when none fits, the model's default stands.
 */
export function thinkingConfigOf(request: ChatRequest, target: UpstreamTarget): Record<string, unknown> | undefined {
  if (target.capabilities.reasoningEfforts.length === 0) return undefined;
  const effort = request.reasoningEffort;
  if (takesThinkingLevel(target.model)) {
    if (effort === undefined) return { includeThoughts: true };
    // Gemini 3 cannot stop thinking: 'off' is its least, and no thoughts are shown.
    return effort === 'off' ? { thinkingLevel: levels.off } : { thinkingLevel: levels[effort], includeThoughts: true };
  }
  if (effort === 'off') return { thinkingBudget: 0 };
  if (effort === undefined) return { includeThoughts: true };
  const budget = budgetForEffort(effort, target.maxOutputTokens);
  return budget === undefined ? { includeThoughts: true } : { thinkingBudget: budget, includeThoughts: true };
}
