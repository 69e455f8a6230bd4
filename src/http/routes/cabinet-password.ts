// Email and password accounts over HTTP (docs/cabinet.md, "Sign-up and login"); the rules are
// src/users/password-accounts.ts's, these only parse, limit and map its errors:
// - POST /cabinet/api/signup {email, password, invite_code?, referral?, locale?} → 202 {accepted: true}
//   (`referral`: the referrer's code from the page's `?ref=`; one that binds nothing is ignored)
// - POST /cabinet/api/verify-email {token} → {purpose, email} (a sign-up's or an email change's link)
// - POST /cabinet/api/login/password {email, password} → the session, as the link login answers
// - POST /cabinet/api/password-reset {email} → 202 {accepted: true}, known address or not
// - POST /cabinet/api/password-reset/confirm {token, password} → 204; every session of the user ends
// - POST /cabinet/api/password {current, new} (session) → {sessions_ended}; the other sessions end
// - POST /cabinet/api/email {email, password} (session) → 202 {accepted: true}; a link goes to the new address
// Login, sign-up and reset requests count against the per-address login limit; a password login
// and a reset request also against the per-email one (checked before the password, so the right
// password is refused too while either is spent).
import { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import { maximumPasswordLength, minimumPasswordLength } from '../../users/password.js';
import {
  CurrentPasswordWrongError,
  EmailNotVerifiedError,
  EmailTakenError,
  EmailTokenInvalidError,
  emailDigest,
  InviteInvalidError,
  InviteRequiredError,
  LoginAccountDisabledError,
  LoginFailedError,
  PasswordAccounts,
  SignupClosedError,
  UserDisabledError,
  UserWithoutAccountError,
} from '../../users/password-accounts.js';
import { validate } from '../../validation/zod-details.js';
import type { Context, Handler } from '../state.js';
import { admitAttempt, admitLoginAttempt, startSession } from './cabinet-auth.js';

const email = z.string().trim().min(3).max(320).regex(/^[^\s@]+@[^\s@]+$/, 'expected an email address, such as name@example.com');
const newPassword = z.string().min(minimumPasswordLength).max(maximumPasswordLength);
/** A password being checked, not set: any length up to the maximum (a short one is simply wrong). */
const givenPassword = z.string().min(1).max(maximumPasswordLength);
const token = z.string().min(1).max(200);

const signupBody = z.strictObject({
  email,
  password: newPassword,
  invite_code: z.string().min(1).max(200).optional(),
  // Any string up to a sane length: a code that names no account is ignored, never refused (docs/payments.md, "Referrals").
  referral: z.string().max(100).optional(),
  locale: z.enum(['ru', 'en']).default('en'),
});
const tokenBody = z.strictObject({ token });
const loginBody = z.strictObject({ email, password: givenPassword });
const resetBody = z.strictObject({ email });
const resetConfirmBody = z.strictObject({ token, password: newPassword });
const changePasswordBody = z.strictObject({ current: givenPassword, new: newPassword });
const changeEmailBody = z.strictObject({ email, password: givenPassword });

const accepted = (ctx: Context) => {
  ctx.status = 202;
  ctx.set('cache-control', 'no-store');
  ctx.body = { accepted: true };
};

/** The module's services for this request (a few references; the mailer is required: without `email` the routes refuse first). */
function passwordAccounts(services: ServerServices): PasswordAccounts {
  const mailer = services.users.mailer;
  if (mailer === undefined) throw new GatewayError('email_unavailable', 'Sign-up and password reset by email are not available on this gateway. Ask the operator for a login link.');
  const { users, members, emailTokens, invites, signUps } = services.users;
  const { publicUrl, emailLinkTtlMs } = services.cabinet.settings;
  return new PasswordAccounts({ db: services.db, users, members, emailTokens, invites, signUps, mailer, sessions: services.cabinet.sessions, logger: services.logger, now: services.now, publicUrl, emailLinkTtlMs });
}

const admitEmailAttempt = (services: ServerServices, address: string) =>
  admitAttempt(services, `cabinet-login-email:${emailDigest(address)}`, services.cabinet.settings.loginAttemptsPerEmailPerMinute, 'for this email');

const clientOf = (ctx: Context) => ({ userAgent: ctx.get('user-agent') || null, address: ctx.clientAddresses.of(ctx.req) ?? null });

/** The errors of password-accounts.ts as the catalog's. */
function mapped(error: unknown): unknown {
  if (error instanceof SignupClosedError) return new GatewayError('signup_closed', 'Sign-up is closed on this gateway. Ask the operator for an account.');
  if (error instanceof InviteRequiredError) return new GatewayError('invite_required', 'Sign-up on this gateway needs an invite code.', { param: 'invite_code' });
  if (error instanceof InviteInvalidError) return new GatewayError('invite_invalid', 'This invite code is invalid, expired or already used.', { param: 'invite_code' });
  if (error instanceof EmailTokenInvalidError) return new GatewayError('email_link_invalid', 'This link is invalid, expired or already used. Ask for a new one.', { param: 'token' });
  if (error instanceof LoginFailedError) return new GatewayError('login_failed', 'The email or password is wrong.');
  if (error instanceof EmailNotVerifiedError) return new GatewayError('email_not_verified', 'This email address is not confirmed yet: we sent a new confirmation link to it. Follow it, then sign in.');
  if (error instanceof UserDisabledError) return new GatewayError('user_disabled', 'This user is disabled. Contact the gateway operator.');
  if (error instanceof LoginAccountDisabledError) return new GatewayError('account_disabled', 'This account is disabled. Contact the gateway operator.');
  if (error instanceof UserWithoutAccountError) return new GatewayError('user_without_account', 'You are not a member of any account any more. Ask an account owner to invite you again.');
  if (error instanceof CurrentPasswordWrongError) return new GatewayError('current_password_wrong', 'The current password is wrong. Nothing was changed.', { param: 'password' });
  if (error instanceof EmailTakenError) return new GatewayError('email_taken', 'This address belongs to another user now. Nothing was changed.');
  return error;
}

async function run<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw mapped(error);
  }
}

export const signUp: Handler = async (ctx, services) => {
  await admitLoginAttempt(ctx, services);
  const body = validate(signupBody, ctx.request.body, 'body');
  const accounts = passwordAccounts(services);
  await run(() => accounts.signUp({ email: body.email, password: body.password, inviteCode: body.invite_code, referralCode: body.referral, locale: body.locale }));
  accepted(ctx);
};

export const verifyEmailLink: Handler = async (ctx, services) => {
  const body = validate(tokenBody, ctx.request.body, 'body');
  const followed = await run(() => passwordAccounts(services).followEmailLink(body.token));
  ctx.set('cache-control', 'no-store');
  ctx.body = followed;
};

export const passwordLogin: Handler = async (ctx, services) => {
  await admitLoginAttempt(ctx, services);
  const body = validate(loginBody, ctx.request.body, 'body');
  await admitEmailAttempt(services, body.email);
  const opened = await run(() => passwordAccounts(services).login(body, clientOf(ctx)));
  await startSession(ctx, services, opened);
};

export const requestPasswordReset: Handler = async (ctx, services) => {
  await admitLoginAttempt(ctx, services);
  const body = validate(resetBody, ctx.request.body, 'body');
  await admitEmailAttempt(services, body.email);
  await run(() => passwordAccounts(services).requestReset(body.email));
  accepted(ctx);
};

export const confirmPasswordReset: Handler = async (ctx, services) => {
  const body = validate(resetConfirmBody, ctx.request.body, 'body');
  await run(() => passwordAccounts(services).confirmReset(body.token, body.password));
  ctx.status = 204;
};

/** The session's user; an operator's link session has none and cannot change a password or an email. */
function userSession(ctx: Context): { id: string; userId: string; accountId: string | null } {
  const session = ctx.state.session!;
  if (session.userId === null) throw new GatewayError('forbidden', "This session was opened by the operator's login link and belongs to no user: there is no password or email to change.");
  return { id: session.id, userId: session.userId, accountId: session.accountId };
}

export const changePassword: Handler = async (ctx, services) => {
  const session = userSession(ctx);
  const body = validate(changePasswordBody, ctx.request.body, 'body');
  const { sessionsEnded } = await run(() => passwordAccounts(services).changePassword(session, body.current, body.new));
  ctx.body = { sessions_ended: sessionsEnded };
};

export const changeEmail: Handler = async (ctx, services) => {
  const session = userSession(ctx);
  const body = validate(changeEmailBody, ctx.request.body, 'body');
  await run(() => passwordAccounts(services).requestEmailChange(session, body.email, body.password));
  accepted(ctx);
};
