// /admin/v1/invites: sign-up invite codes (cabinet.signup: invite) — the services of `gateway
// invites ls/create/revoke`, audited with the actor. A code is in the answer that creates it only.
import * as schemas from '../../admin/schemas.js';
import { KeyPolicyFormatError, parseExpires } from '../../auth/key-policy.js';
import { wholeList } from '../../cli/list-output.js';
import { presentCreatedInvite, presentInvite } from '../../cli/present-invites.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { actorOf } from './admin-actor.js';

export const listInvites: Handler = async (ctx, { users, now }) => {
  const query = validate(schemas.invitesQuery, ctx.query, 'query');
  const at = now();
  ctx.body = wholeList((await users.invites.list({ all: query.all === 'true' })).map((invite) => presentInvite(invite, at)));
};

export const createInvites: Handler = async (ctx, { users, now }) => {
  const body = validate(schemas.createInvitesBody, ctx.request.body ?? {}, 'body'); // no body: one code for 30 days
  const at = now();
  let expiresAt: number | null;
  try {
    expiresAt = parseExpires(body.expires ?? '30d', at);
  } catch (error) {
    if (!(error instanceof KeyPolicyFormatError)) throw error;
    throw invalid(['body', 'expires'], error.reason, body.expires);
  }
  const made = await users.invites.create({ count: body.count ?? 1, expiresAt, actor: actorOf(ctx), at });
  ctx.status = 201;
  ctx.body = wholeList(made.map((one) => presentCreatedInvite(one, at)));
};

/** Revoking a revoked or used code changes nothing and writes no audit row. */
export const revokeInvite: Handler = async (ctx, { users, now }) => {
  ctx.body = presentInvite(await users.invites.revoke(ctx.params.id!, actorOf(ctx)), now());
};
