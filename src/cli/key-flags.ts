// The flags `keys create` and `keys update` share: expiry, model and IP allowlists, budget.
// Parsed by src/auth/key-policy.ts (a bad value exits 1 with invalid_argument naming the flag).
import { Flags } from '@oclif/core';
import type { KeyControls } from '../auth/api-keys.js';
import { budgetPeriods, parseAllowedIps, parseBudget, parseBudgetPeriod, parseExpires, parseModels } from '../auth/key-policy.js';

export const keyControlFlags = {
  expires: Flags.string({ description: 'when the key stops working: a duration from now (30d, 12h, 90m, 2w), a date (2027-01-31: at 00:00 UTC), an ISO time with zone, or never' }),
  models: Flags.string({ description: "models the key may use: comma-separated ids or glob patterns ('gpt-4o,sim/*'), or any" }),
  'allow-ips': Flags.string({ description: 'addresses the key may be used from: comma-separated IPv4/IPv6 addresses or CIDR blocks (10.0.0.0/8,203.0.113.7), or any' }),
  budget: Flags.string({ description: 'spending budget in RUB per --budget-period (charged + held), or off' }),
  'budget-period': Flags.string({ description: `the budget's period, in UTC: ${budgetPeriods.join(', ')} (default month)`, options: [...budgetPeriods] }),
};

interface ControlFlagValues {
  expires?: string;
  models?: string;
  'allow-ips'?: string;
  budget?: string;
  'budget-period'?: string;
}

/** The controls the flags set (undefined fields: not given). */
export function controlsFromFlags(flags: ControlFlagValues, now: number, options: { currentPeriod?: string | null } = {}): KeyControls {
  const controls: { -readonly [K in keyof KeyControls]: KeyControls[K] } = {};
  if (flags.expires !== undefined) controls.expiresAt = parseExpires(flags.expires, now);
  if (flags.models !== undefined) controls.models = parseModels(flags.models);
  if (flags['allow-ips'] !== undefined) controls.allowedIps = parseAllowedIps(flags['allow-ips']);
  if (flags.budget !== undefined) {
    controls.budgetUnits = parseBudget(flags.budget);
    controls.budgetPeriod = controls.budgetUnits === null ? null : parseBudgetPeriod(flags['budget-period'] ?? options.currentPeriod ?? 'month');
  } else if (flags['budget-period'] !== undefined) {
    controls.budgetPeriod = parseBudgetPeriod(flags['budget-period']);
  }
  return controls;
}
