// A key's controls (expiry, models, addresses, budget, tokens per minute, requests in flight) from their text forms, as `keys create`
// and `keys update` take them and as the admin API's POST /admin/v1/accounts/:id/keys does:
// one reading for both (parsed by key-policy.ts; a bad value is a KeyPolicyFormatError naming
// the flag, which each surface words as its own field).
import type { KeyControls } from './api-keys.js';
import { parseAllowedIps, parseBudget, parseBudgetPeriod, parseExpires, parseMaxInFlight, parseModels, parseTokensPerMinute } from './key-policy.js';

export interface KeyControlValues {
  readonly expires?: string;
  /** Comma-separated ids or patterns, or `any`. */
  readonly models?: string;
  /** Comma-separated addresses or CIDR blocks, or `any`. */
  readonly allowIps?: string;
  /** RUB, or `off`. */
  readonly budget?: string;
  readonly budgetPeriod?: string;
  /** Tokens per minute, or `none`/`0`. */
  readonly tpm?: string;
  /** Requests in flight at once, or `none`/`0`. */
  readonly maxInFlight?: string;
}

/** The controls the values set (undefined fields: not given). `currentPeriod`: the key's period now (update keeps it). */
export function keyControlsFrom(values: KeyControlValues, now: number, options: { currentPeriod?: string | null } = {}): KeyControls {
  const controls: { -readonly [K in keyof KeyControls]: KeyControls[K] } = {};
  if (values.expires !== undefined) controls.expiresAt = parseExpires(values.expires, now);
  if (values.models !== undefined) controls.models = parseModels(values.models);
  if (values.allowIps !== undefined) controls.allowedIps = parseAllowedIps(values.allowIps);
  if (values.budget !== undefined) {
    controls.budgetUnits = parseBudget(values.budget);
    controls.budgetPeriod = controls.budgetUnits === null ? null : parseBudgetPeriod(values.budgetPeriod ?? options.currentPeriod ?? 'month');
  } else if (values.budgetPeriod !== undefined) {
    controls.budgetPeriod = parseBudgetPeriod(values.budgetPeriod);
  }
  if (values.tpm !== undefined) controls.tpm = parseTokensPerMinute(values.tpm);
  if (values.maxInFlight !== undefined) controls.maxInFlight = parseMaxInFlight(values.maxInFlight);
  return controls;
}
