// Reasoning effort ⇄ thinking budget, one table for every dialect and adapter, so a request
// that crosses from one vocabulary to the other and back lands where it started.
import type { ReasoningEffort } from './chat.js';

/** Thinking budget (tokens) that each effort stands for (Anthropic `thinking.budget_tokens`). */
export const thinkingBudgets: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
};

/** The smallest effort whose budget covers `budgetTokens` (xhigh beyond the table). */
export function effortForBudget(budgetTokens: number): Exclude<ReasoningEffort, 'none'> {
  for (const [effort, budget] of Object.entries(thinkingBudgets) as [Exclude<ReasoningEffort, 'none'>, number][]) {
    if (budgetTokens <= budget) return effort;
  }
  return 'xhigh';
}

/**
 * The budget to send upstream for an effort, kept strictly below the output budget
 * (max_tokens includes reasoning) and at least 1024 (Anthropic's minimum). Returns
 * undefined when no room is left for thinking.
 */
export function budgetForEffort(effort: Exclude<ReasoningEffort, 'none'>, maxOutputTokens: number): number | undefined {
  const budget = Math.min(thinkingBudgets[effort], maxOutputTokens - 1);
  return budget >= 1024 ? budget : undefined;
}
