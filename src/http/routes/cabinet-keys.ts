// The account's keys and webhook secret in the cabinet: GET/POST /cabinet/api/keys,
// PATCH /cabinet/api/keys/{id} (its controls), POST /cabinet/api/keys/{id}/revoke, GET /cabinet/api/webhook-secret and
// POST /cabinet/api/webhook-secret/rotate. Changes are written to the audit log with the
// session as the actor (`cabinet:<session id>`), in the change's own transaction. Another
// account's key is a 404 like an unknown one. A key's controls are read as the CLI and the
// admin API read them (src/auth/key-control-fields.ts): a bad one is a 422 naming its field.
import { z } from 'zod';
import { KeyNotFoundError, type ApiKey } from '../../auth/api-keys.js';
import { keyControlsFromFields } from '../../auth/key-control-fields.js';
import { budgetPeriods, maxRequestsInFlight, maxTokensPerMinute } from '../../auth/key-policy.js';
import { allScopes } from '../../auth/scopes.js';
import { presentCabinetKey } from '../../cabinet-api/keys.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Context, Handler } from '../state.js';

/** Who the audit log names for a change made in the cabinet: `cabinet:<session id>` (set by the session's authentication). */
const cabinetActor = (ctx: Context) => ctx.state.actor!;

/** The fields both a new key and a change take (a change leaves out what stays). */
const controlFields = {
  rpm: z.number().int().min(1).max(1_000_000).nullable().optional(),
  tpm: z.number().int().min(1).max(maxTokensPerMinute).nullable().optional(),
  max_in_flight: z.number().int().min(1).max(maxRequestsInFlight).nullable().optional(),
  expires: z.string().max(100).nullable().optional(),
  models: z.array(z.string().max(200)).min(1).max(100).nullable().optional(),
  allowed_ips: z.array(z.string().max(64)).min(1).max(100).nullable().optional(),
  budget_rub: z.string().max(40).nullable().optional(),
  budget_period: z.enum(budgetPeriods).optional(),
};

const createKeyBody = z.object({
  name: z.string().trim().min(1).max(200),
  scopes: z.array(z.enum(allScopes)).min(1).max(allScopes.length),
  ...controlFields,
});

const updateKeyBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  scopes: z.array(z.enum(allScopes)).min(1).max(allScopes.length).optional(),
  ...controlFields,
});

export const listCabinetKeys: Handler = async (ctx, services) => {
  const keys = await services.apiKeys.list(ctx.state.apiKey!.accountId);
  ctx.body = { object: 'list', data: keys.map(presentCabinetKey) };
};

export const createCabinetKey: Handler = async (ctx, services) => {
  const body = validate(createKeyBody, ctx.request.body, 'body');
  const controls = keyControlsFromFields({ ...body, rpm: body.rpm ?? null }, services.now());
  const { apiKey, key } = await services.apiKeys.create({ ...controls, accountId: ctx.state.apiKey!.accountId, audit: { actor: cabinetActor(ctx) } });
  ctx.status = 201;
  ctx.set('cache-control', 'no-store');
  ctx.body = { ...presentCabinetKey(apiKey), key };
};

/**
 * Changes the controls the body names; the rest stay. The cabinet's own key (purpose
 * `cabinet`: the key the cabinet acts through) is not the customer's to restrict: 422.
 */
export const updateCabinetKey: Handler = async (ctx, services) => {
  const apiKey = await ownKey(ctx, services);
  const body = validate(updateKeyBody, ctx.request.body ?? {}, 'body');
  if (apiKey.purpose === 'cabinet') throw invalid(['path', 'id'], 'this is the key the cabinet itself acts through; its controls cannot be changed', apiKey.id);
  const controls = keyControlsFromFields(body, services.now(), { currentPeriod: apiKey.budgetPeriod });
  const { after } = await services.apiKeys.update(apiKey.id, controls, { actor: cabinetActor(ctx) });
  ctx.body = presentCabinetKey(after);
};

async function ownKey(ctx: Context, services: ServerServices): Promise<ApiKey> {
  const id = ctx.params.id ?? '';
  const notFound = new GatewayError('not_found', `No API key found with id '${id}'.`);
  try {
    const apiKey = await services.apiKeys.find(id);
    if (apiKey.accountId !== ctx.state.apiKey!.accountId) throw notFound;
    return apiKey;
  } catch (error) {
    throw error instanceof KeyNotFoundError ? notFound : error;
  }
}

export const revokeCabinetKey: Handler = async (ctx, services) => {
  const apiKey = await ownKey(ctx, services);
  ctx.body = presentCabinetKey(await services.apiKeys.revoke(apiKey.id, { audit: { actor: cabinetActor(ctx) } }));
};

export const showWebhookSecret: Handler = async (ctx, services) => {
  const account = await services.accounts.find(ctx.state.apiKey!.accountId);
  ctx.set('cache-control', 'no-store');
  ctx.body = { webhook_secret: account.webhookSecret };
};

export const rotateWebhookSecret: Handler = async (ctx, services) => {
  const secret = await services.accounts.rotateWebhookSecret(ctx.state.apiKey!.accountId, { actor: cabinetActor(ctx) });
  ctx.set('cache-control', 'no-store');
  ctx.body = { webhook_secret: secret };
};
