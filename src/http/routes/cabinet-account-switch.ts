// POST /cabinet/api/session/account {account_id}: a user who is a member of several accounts
// moves their session to another one (GET /cabinet/api/session lists them). The switch opens a
// new session (new id, cookie and CSRF token) on that account and ends the old one, as a login
// does: a session's id is never carried into other rights. Public in the route table (a user
// removed from the account their session is on must still be able to leave it); the handler
// reads the session itself.
import { z } from 'zod';
import { sessionCookie } from '../../cabinet/cookie.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { validate } from '../../validation/zod-details.js';
import { assertCsrf, liveSession } from '../middleware/session-auth.js';
import type { Handler } from '../state.js';
import { presentSessionWithAccounts, secureCookie } from './cabinet-auth.js';

const switchBody = z.strictObject({ account_id: z.string().min(1).max(64) });

export const switchAccount: Handler = async (ctx, services) => {
  const current = await liveSession(ctx, services);
  if (current.kind !== 'account' || current.userId === null || current.method === 'link') {
    throw new GatewayError('forbidden', "Only a user's session can switch accounts; a session opened by a login link stays on its account.");
  }
  assertCsrf(ctx, current);
  const body = validate(switchBody, ctx.request.body, 'body');
  const role = await services.users.members.roleOf(body.account_id, current.userId);
  if (role === undefined) throw new GatewayError('not_found', `You are not a member of an account '${body.account_id}'.`, { param: 'account_id' });
  const account = await services.accounts.find(body.account_id);
  if (account.disabledAt !== null) throw new GatewayError('account_disabled', 'This account is disabled. Contact the gateway operator.');
  const client = { userAgent: ctx.get('user-agent') || null, address: ctx.clientAddresses.of(ctx.req) ?? null };
  const { session, cookieToken } = await services.cabinet.sessions.openForUser({ accountId: account.id, userId: current.userId, method: current.method }, client);
  await services.cabinet.sessions.end(current.id);
  ctx.set('set-cookie', sessionCookie(cookieToken, session.expiresAt, services.now(), secureCookie(ctx, services)));
  ctx.set('cache-control', 'no-store');
  ctx.body = await presentSessionWithAccounts(session, services);
};
