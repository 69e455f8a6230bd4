// POST /cabinet/api/join {token, password?, name?, locale?}: following an invitation link
// (/cabinet/join#token=…, sent by POST /cabinet/api/members/invite). Public in the route table;
// the handler reads the session itself, as logout does:
// - with a live account session of a user (any login method), that user joins the account
//   (CSRF checked); their session stays where it is and may switch to it (POST
//   /cabinet/api/session/account);
// - without one, a stranger joins as a new user with the invited address and the password they
//   choose, and a session opens on the account. This is not a sign-up: no account of their own,
//   no bonus, and it works whatever cabinet.signup says. The address counts as verified when
//   the gateway sends email (the link then went to it); without `email` the owner passed the
//   link on by hand, so it is not.
import { z } from 'zod';
import { readSessionCookie, sessionCookie } from '../../cabinet/cookie.js';
import type { CabinetSession } from '../../cabinet/sessions.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import { EmailTokenInvalidError } from '../../users/email-tokens.js';
import { hashPassword, maximumPasswordLength, minimumPasswordLength } from '../../users/password.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { assertCsrf } from '../middleware/session-auth.js';
import type { Context, Handler } from '../state.js';
import { presentSessionWithAccounts, secureCookie } from './cabinet-auth.js';

const joinBody = z.strictObject({
  token: z.string().min(1).max(200),
  password: z.string().min(minimumPasswordLength).max(maximumPasswordLength).optional(),
  name: z.string().trim().min(1).max(200).optional(),
  locale: z.enum(['ru', 'en']).optional(),
});

const joinLinkInvalid = () => new GatewayError('join_link_invalid', 'This invitation link is invalid, expired or already used. Ask the account owner for a new one.', { param: 'token' });

/** The request's live account session of a user, if it has one (a missing or dead cookie is a stranger). */
async function userSession(ctx: Context, services: ServerServices): Promise<CabinetSession | undefined> {
  const lookup = await services.cabinet.sessions.authenticate(readSessionCookie(ctx.get('cookie')));
  if (!('session' in lookup)) return undefined;
  return lookup.session.kind === 'account' && lookup.session.userId !== null ? lookup.session : undefined;
}

async function accountSummary(services: ServerServices, accountId: string) {
  const account = await services.accounts.find(accountId);
  return { id: account.id, name: account.name };
}

export const joinAccount: Handler = async (ctx, services) => {
  const body = validate(joinBody, ctx.request.body, 'body');
  const { memberships } = services.users;
  ctx.set('cache-control', 'no-store');
  const current = await userSession(ctx, services);
  if (current !== undefined) {
    assertCsrf(ctx, current);
    let joined;
    try {
      joined = await memberships.joinAsUser(body.token, current.userId!);
    } catch (error) {
      throw error instanceof EmailTokenInvalidError ? joinLinkInvalid() : error;
    }
    ctx.body = { account: await accountSummary(services, joined.accountId), role: joined.role, new_user: false, session: await presentSessionWithAccounts(current, services) };
    return;
  }
  if (body.password === undefined) throw invalid(['body', 'password'], 'Field required', undefined, 'missing');
  if (!(await memberships.joinLinkPending(body.token))) throw joinLinkInvalid();
  const passwordHash = await hashPassword(body.password);
  const client = { userAgent: ctx.get('user-agent') || null, address: ctx.clientAddresses.of(ctx.req) ?? null };
  let opened;
  try {
    opened = await memberships.joinAsNewUser(
      body.token,
      { passwordHash, name: body.name ?? null, locale: body.locale ?? 'en', emailVerified: services.users.mailer !== undefined },
      async (trx, joined) => ({ joined, ...(await services.cabinet.sessions.openForUser({ accountId: joined.accountId, userId: joined.user.id, method: 'password' }, client, trx)) }),
    );
  } catch (error) {
    throw error instanceof EmailTokenInvalidError ? joinLinkInvalid() : error;
  }
  const { joined, session, cookieToken } = opened;
  ctx.set('set-cookie', sessionCookie(cookieToken, session.expiresAt, services.now(), secureCookie(ctx, services)));
  ctx.body = { account: await accountSummary(services, joined.accountId), role: joined.role, new_user: true, session: await presentSessionWithAccounts(session, services) };
};
