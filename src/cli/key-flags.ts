// The flags `keys create` and `keys update` share: expiry, model and IP allowlists, budget,
// tokens per minute and requests in flight.
// Read by src/auth/key-controls.ts (a bad value exits 1 with invalid_argument naming the flag).
import { Flags } from '@oclif/core';
import type { KeyControls } from '../auth/api-keys.js';
import { keyControlsFrom } from '../auth/key-controls.js';
import { budgetPeriods } from '../auth/key-policy.js';

export const keyControlFlags = {
  expires: Flags.string({ description: 'when the key stops working: a duration from now (30d, 12h, 90m, 2w), a date (2027-01-31: at 00:00 UTC), an ISO time with zone, or never' }),
  models: Flags.string({ description: "models the key may use: comma-separated ids or glob patterns ('gpt-4o,sim/*'), or any" }),
  'allow-ips': Flags.string({ description: 'addresses the key may be used from: comma-separated IPv4/IPv6 addresses or CIDR blocks (10.0.0.0/8,203.0.113.7), or any' }),
  budget: Flags.string({ description: 'spending budget in RUB per --budget-period (charged + held), or off' }),
  'budget-period': Flags.string({ description: `the budget's period, in UTC: ${budgetPeriods.join(', ')} (default month)`, options: [...budgetPeriods] }),
  tpm: Flags.string({ description: 'tokens per minute for this key (input + output, counted when each call is charged; 429 once reached), or none (0) for no limit' }),
  'max-in-flight': Flags.string({ description: 'requests of this key at once at most (a 429 beyond), or none (0) for no limit' }),
};

interface ControlFlagValues {
  expires?: string;
  models?: string;
  'allow-ips'?: string;
  budget?: string;
  'budget-period'?: string;
  tpm?: string;
  'max-in-flight'?: string;
}

/** The controls the flags set (undefined fields: not given). */
export function controlsFromFlags(flags: ControlFlagValues, now: number, options: { currentPeriod?: string | null } = {}): KeyControls {
  return keyControlsFrom({ expires: flags.expires, models: flags.models, allowIps: flags['allow-ips'], budget: flags.budget, budgetPeriod: flags['budget-period'], tpm: flags.tpm, maxInFlight: flags['max-in-flight'] }, now, options);
}
