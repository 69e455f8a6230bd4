// Reasoning effort ⇄ thinking budget, one table for every dialect and adapter, so a request
// that crosses from one vocabulary to the other and back lands where it started.
// Names: the spec's (`off` … `max`) and OpenAI's `xhigh`, a level of its own between `high` and
// `max` (OpenAI's strongest; `max` is the spec's and Anthropic's). OpenAI's `none` is read as an
// alias of `off`.
import type { ReasoningEffort } from './chat.js';

/** The spec's efforts, weakest first. */
export const reasoningEffortNames = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const satisfies readonly ReasoningEffort[];

/** Other names for the same levels (OpenAI's vocabulary). */
const aliases: Record<string, ReasoningEffort> = { none: 'off' };

/** Every name a request or the config may use: the levels, then the aliases. */
export const acceptedReasoningEfforts = [...reasoningEffortNames, 'none'] as const;
export type AcceptedReasoningEffort = (typeof acceptedReasoningEfforts)[number];

/** The spec name of an accepted effort name. */
export function normalizeReasoningEffort(name: AcceptedReasoningEffort): ReasoningEffort {
  return aliases[name] ?? (name as ReasoningEffort);
}

/**
 * The effort a model can use for a hinted one: the hint itself when listed, else the closest
 * listed level (the stronger one on a tie), never 'off' unless 'off' was hinted; undefined
 * when the model lists none.
 */
export function closestReasoningEffort(hint: ReasoningEffort, allowed: readonly ReasoningEffort[]): ReasoningEffort | undefined {
  if (allowed.includes(hint)) return hint;
  const rank = (effort: ReasoningEffort) => reasoningEffortNames.indexOf(effort);
  let best: ReasoningEffort | undefined;
  for (const effort of allowed) {
    if (effort === 'off') continue;
    if (best === undefined || Math.abs(rank(effort) - rank(hint)) < Math.abs(rank(best) - rank(hint)) || (Math.abs(rank(effort) - rank(hint)) === Math.abs(rank(best) - rank(hint)) && rank(effort) > rank(best))) {
      best = effort;
    }
  }
  return best;
}

/** Thinking budget (tokens) that each effort stands for (Anthropic `thinking.budget_tokens`). */
export const thinkingBudgets: Record<Exclude<ReasoningEffort, 'off'>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  // Halfway between high and max: Anthropic's budgets are a scale, not levels.
  xhigh: 24576,
  max: 32768,
};

/** The smallest effort whose budget covers `budgetTokens` (max beyond the table). */
export function effortForBudget(budgetTokens: number): Exclude<ReasoningEffort, 'off'> {
  for (const [effort, budget] of Object.entries(thinkingBudgets) as [Exclude<ReasoningEffort, 'off'>, number][]) {
    if (budgetTokens <= budget) return effort;
  }
  return 'max';
}

/**
 * The budget to send upstream for an effort, kept strictly below the output budget
 * (max_tokens includes reasoning) and at least 1024 (Anthropic's minimum). Returns
 * undefined when no room is left for thinking.
 */
export function budgetForEffort(effort: Exclude<ReasoningEffort, 'off'>, maxOutputTokens: number): number | undefined {
  const budget = Math.min(thinkingBudgets[effort], maxOutputTokens - 1);
  return budget >= 1024 ? budget : undefined;
}
