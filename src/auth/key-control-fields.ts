// A key's controls as the JSON APIs take them (the admin API's POST /admin/v1/accounts/:id/keys
// and PATCH /admin/v1/keys/:id, the cabinet's POST and PATCH /cabinet/api/keys): read through
// the CLI's own parsing (key-controls.ts, key-policy.ts) so every surface reads a control the
// same way, and a refusal is a 422 naming the body field rather than the CLI's flag.
import { invalid } from '../validation/zod-details.js';
import type { KeyControls } from './api-keys.js';
import { keyControlsFrom } from './key-controls.js';
import { KeyPolicyFormatError, type BudgetPeriod } from './key-policy.js';
import { allScopes, type Scope } from './scopes.js';

/** The body fields (undefined: not given). Nulls lift a control: no expiry, any model, any address, no budget, the default rpm, no tpm or in-flight limit. */
export interface KeyControlFields {
  readonly name?: string | null;
  readonly scopes?: readonly Scope[];
  readonly rpm?: number | null;
  /** 0 or null: no limit. */
  readonly tpm?: number | null;
  /** 0 or null: no limit. */
  readonly max_in_flight?: number | null;
  /** A duration, a date, an ISO time with its zone, or `never` (null: never). */
  readonly expires?: string | null;
  readonly models?: readonly string[] | null;
  readonly allowed_ips?: readonly string[] | null;
  /** RUB per budget_period; null: no budget. */
  readonly budget_rub?: string | null;
  readonly budget_period?: BudgetPeriod;
}

/** The body field each control flag of the CLI is read from. */
const fieldOfFlag: Record<string, string> = { expires: 'expires', models: 'models', 'allow-ips': 'allowed_ips', budget: 'budget_rub', 'budget-period': 'budget_period', tpm: 'tpm', 'max-in-flight': 'max_in_flight' };

/**
 * The controls the fields set (undefined fields: unchanged). `currentPeriod`: the key's budget
 * period now (a new budget amount keeps it, as `keys update --budget` does). A bad value is a
 * RequestValidationError (422) at `['body', field]`.
 */
export function keyControlsFromFields(fields: KeyControlFields, now: number, options: { currentPeriod?: string | null } = {}): KeyControls {
  let controls: KeyControls;
  try {
    // The CLI's own reading, lists given as its comma-separated text.
    controls = keyControlsFrom(
      {
        expires: fields.expires === undefined ? undefined : (fields.expires ?? 'never'),
        models: fields.models === undefined ? undefined : fields.models === null ? 'any' : fields.models.join(','),
        allowIps: fields.allowed_ips === undefined ? undefined : fields.allowed_ips === null ? 'any' : fields.allowed_ips.join(','),
        budget: fields.budget_rub === undefined ? undefined : (fields.budget_rub ?? 'off'),
        budgetPeriod: fields.budget_period,
        tpm: fields.tpm === undefined ? undefined : String(fields.tpm ?? 0),
        maxInFlight: fields.max_in_flight === undefined ? undefined : String(fields.max_in_flight ?? 0),
      },
      now,
      options,
    );
  } catch (error) {
    if (!(error instanceof KeyPolicyFormatError)) throw error;
    const field = fieldOfFlag[error.flag] ?? error.flag;
    throw invalid(['body', field], error.reason, (fields as Record<string, unknown>)[field]);
  }
  const extra: { -readonly [K in 'scopes' | 'name' | 'rpm']?: KeyControls[K] } = {};
  // In the canonical order, once each, as the CLI's parseScopes gives them.
  if (fields.scopes !== undefined) extra.scopes = allScopes.filter((scope) => fields.scopes!.includes(scope));
  if (fields.name !== undefined) extra.name = fields.name;
  if (fields.rpm !== undefined) extra.rpm = fields.rpm;
  return { ...controls, ...extra };
}
