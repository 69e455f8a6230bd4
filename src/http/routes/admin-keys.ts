// /admin/v1 keys: an account's keys, a new key (its secret answered once), a revocation — the
// services of `gateway keys ls/create/revoke`, audited with the actor.
import * as schemas from '../../admin/schemas.js';
import type { KeyControls } from '../../auth/api-keys.js';
import { keyControlsFrom } from '../../auth/key-controls.js';
import { KeyPolicyFormatError } from '../../auth/key-policy.js';
import { allScopes } from '../../auth/scopes.js';
import { wholeList } from '../../cli/list-output.js';
import { keyStatus, presentCreatedKey, presentKey } from '../../cli/present.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { actorOf } from './admin-actor.js';

/** The body field each control flag is read from (a refusal names the field, not the flag). */
const fieldOfFlag: Record<string, string> = { expires: 'expires', models: 'models', 'allow-ips': 'allowed_ips', budget: 'budget_rub', 'budget-period': 'budget_period', tpm: 'tpm', 'max-in-flight': 'max_in_flight' };

export const listKeys: Handler = async (ctx, { accounts, apiKeys, now }) => {
  const account = await accounts.find(ctx.params.id!);
  const at = now();
  ctx.body = wholeList((await apiKeys.list(account.id)).map((key) => ({ ...presentKey(key), status: keyStatus(key, at) })));
};

export const createKey: Handler = async (ctx, { accounts, apiKeys, now }) => {
  const body = validate(schemas.createKeyBody, ctx.request.body ?? {}, 'body'); // no body: every default
  let controls: KeyControls;
  try {
    // The CLI's own reading of the controls (lists as its comma-separated text).
    controls = keyControlsFrom(
      {
        expires: body.expires,
        models: body.models === undefined ? undefined : body.models === null ? 'any' : body.models.join(','),
        allowIps: body.allowed_ips === undefined ? undefined : body.allowed_ips === null ? 'any' : body.allowed_ips.join(','),
        budget: body.budget_rub === undefined ? undefined : body.budget_rub === null ? 'off' : body.budget_rub,
        budgetPeriod: body.budget_period,
        tpm: body.tpm === undefined ? undefined : String(body.tpm ?? 0),
        maxInFlight: body.max_in_flight === undefined ? undefined : String(body.max_in_flight ?? 0),
      },
      now(),
    );
  } catch (error) {
    if (!(error instanceof KeyPolicyFormatError)) throw error;
    const field = fieldOfFlag[error.flag] ?? error.flag;
    throw invalid(['body', field], error.reason, (body as Record<string, unknown>)[field]);
  }
  const account = await accounts.find(ctx.params.id!);
  // In the canonical order, once each, as the CLI's parseScopes gives them.
  const scopes = allScopes.filter((scope) => (body.scopes ?? allScopes).includes(scope));
  const { apiKey, key } = await apiKeys.create({ ...controls, accountId: account.id, scopes, name: body.name ?? null, rpm: body.rpm ?? null, audit: { actor: actorOf(ctx) } });
  ctx.status = 201;
  ctx.body = presentCreatedKey(apiKey, key);
};

/** Revoking a revoked key changes nothing (its first revocation time stays) and writes no audit row. */
export const revokeKey: Handler = async (ctx, { apiKeys, now }) => {
  const apiKey = await apiKeys.revoke(ctx.params.id!, { audit: { actor: actorOf(ctx) } });
  ctx.body = { ...presentKey(apiKey), status: keyStatus(apiKey, now()) };
};
