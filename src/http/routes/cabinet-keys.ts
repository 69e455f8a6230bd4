// The account's keys and webhook secret in the cabinet: GET/POST /cabinet/api/keys,
// POST /cabinet/api/keys/{id}/revoke, GET /cabinet/api/webhook-secret and
// POST /cabinet/api/webhook-secret/rotate. Changes are written to the audit log with the
// session as the actor (`cabinet:<session id>`), in the change's own transaction. Another
// account's key is a 404 like an unknown one.
import { z } from 'zod';
import { KeyNotFoundError, type ApiKey } from '../../auth/api-keys.js';
import { maxRequestsInFlight, maxTokensPerMinute } from '../../auth/key-policy.js';
import { allScopes, type Scope } from '../../auth/scopes.js';
import { presentCabinetKey } from '../../cabinet-api/keys.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import { validate } from '../../validation/zod-details.js';
import type { Context, Handler } from '../state.js';

/** Who the audit log names for a change made in the cabinet: `cabinet:<session id>` (set by the session's authentication). */
const cabinetActor = (ctx: Context) => ctx.state.actor!;

const createKeyBody = z.object({
  name: z.string().trim().min(1).max(200),
  scopes: z.array(z.enum(allScopes)).min(1).max(allScopes.length),
  rpm: z.number().int().min(1).max(1_000_000).nullable().optional(),
  tpm: z.number().int().min(1).max(maxTokensPerMinute).nullable().optional(),
  max_in_flight: z.number().int().min(1).max(maxRequestsInFlight).nullable().optional(),
});

export const listCabinetKeys: Handler = async (ctx, services) => {
  const keys = await services.apiKeys.list(ctx.state.apiKey!.accountId);
  ctx.body = { object: 'list', data: keys.map(presentCabinetKey) };
};

export const createCabinetKey: Handler = async (ctx, services) => {
  const body = validate(createKeyBody, ctx.request.body, 'body');
  // Canonical order, each scope once (as `keys create --scopes` stores them).
  const scopes: Scope[] = allScopes.filter((scope) => body.scopes.includes(scope));
  const { apiKey, key } = await services.apiKeys.create({
    accountId: ctx.state.apiKey!.accountId,
    name: body.name,
    scopes,
    rpm: body.rpm ?? null,
    tpm: body.tpm ?? null,
    maxInFlight: body.max_in_flight ?? null,
    audit: { actor: cabinetActor(ctx) },
  });
  ctx.status = 201;
  ctx.set('cache-control', 'no-store');
  ctx.body = { ...presentCabinetKey(apiKey), key };
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
