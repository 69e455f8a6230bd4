// /admin/v1 keys: an account's keys, a new key (its secret answered once), a change of its
// controls, a revocation — the services of `gateway keys ls/create/update/revoke`, audited with the actor.
import * as schemas from '../../admin/schemas.js';
import { presentControls } from '../../auth/api-keys.js';
import { keyControlsFromFields } from '../../auth/key-control-fields.js';
import { allScopes } from '../../auth/scopes.js';
import { wholeList } from '../../cli/list-output.js';
import { keyStatus, presentCreatedKey, presentKey } from '../../cli/present.js';
import { validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { actorOf } from './admin-actor.js';

export const listKeys: Handler = async (ctx, { accounts, apiKeys, now }) => {
  const account = await accounts.find(ctx.params.id!);
  const at = now();
  ctx.body = wholeList((await apiKeys.list(account.id)).map((key) => ({ ...presentKey(key), status: keyStatus(key, at) })));
};

export const createKey: Handler = async (ctx, { accounts, apiKeys, now }) => {
  const body = validate(schemas.createKeyBody, ctx.request.body ?? {}, 'body'); // no body: every default
  const controls = keyControlsFromFields({ ...body, scopes: body.scopes ?? allScopes, name: body.name ?? null, rpm: body.rpm ?? null }, now());
  const account = await accounts.find(ctx.params.id!);
  const { apiKey, key } = await apiKeys.create({ ...controls, accountId: account.id, audit: { actor: actorOf(ctx) } });
  ctx.status = 201;
  ctx.body = presentCreatedKey(apiKey, key);
};

/** Every control at once or any of them; what the body leaves out stays. Audited (key.update) with what changed, even when nothing did. */
export const updateKey: Handler = async (ctx, { apiKeys, now }) => {
  const body = validate(schemas.updateKeyBody, ctx.request.body ?? {}, 'body');
  const current = await apiKeys.find(ctx.params.id!);
  const controls = keyControlsFromFields(body, now(), { currentPeriod: current.budgetPeriod });
  const { before, after } = await apiKeys.update(current.id, controls, { actor: actorOf(ctx) });
  const [from, to] = [presentControls(before), presentControls(after)];
  const changed = (Object.keys(to) as (keyof typeof to)[]).filter((field) => JSON.stringify(from[field]) !== JSON.stringify(to[field]));
  ctx.body = { ...presentKey(after), status: keyStatus(after, now()), changed };
};

/** Revoking a revoked key changes nothing (its first revocation time stays) and writes no audit row. */
export const revokeKey: Handler = async (ctx, { apiKeys, now }) => {
  const apiKey = await apiKeys.revoke(ctx.params.id!, { audit: { actor: actorOf(ctx) } });
  ctx.body = { ...presentKey(apiKey), status: keyStatus(apiKey, now()) };
};
