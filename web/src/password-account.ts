// The customer's email and password account as the pages reach it (docs/cabinet.md, "Sign-up
// and login"): sign-up, the links sent by email (verification, reset), login, and the changes
// a signed-in user makes. The server answers sign-up and reset requests alike whether or not
// the address has an account; the pages say so in the same words for both.
import { api, ApiError, setCsrfToken } from './api.js';
import type { MessageKey } from './i18n/index.js';
import type { Session } from './session.js';

export async function logInWithPassword(email: string, password: string): Promise<Session> {
  const session = await api<Session>('/cabinet/api/login/password', { method: 'POST', body: { email, password } });
  setCsrfToken(session.csrf_token);
  return session;
}

/** `referral`: the code of the referral link the visitor came by (`/cabinet/signup?ref=CODE`), which binds the new account to its referrer. */
export function signUp(body: { email: string; password: string; invite_code?: string; referral?: string; locale: 'ru' | 'en' }): Promise<{ accepted: true }> {
  return api('/cabinet/api/signup', { method: 'POST', body });
}

export function followEmailLink(token: string): Promise<{ purpose: 'verify_email' | 'change_email'; email: string }> {
  return api('/cabinet/api/verify-email', { method: 'POST', body: { token } });
}

export function requestPasswordReset(email: string): Promise<{ accepted: true }> {
  return api('/cabinet/api/password-reset', { method: 'POST', body: { email } });
}

export function confirmPasswordReset(token: string, password: string): Promise<void> {
  return api('/cabinet/api/password-reset/confirm', { method: 'POST', body: { token, password } });
}

export function changePassword(current: string, next: string): Promise<{ sessions_ended: number }> {
  return api('/cabinet/api/password', { method: 'POST', body: { current, new: next } });
}

export function changeEmail(email: string, password: string): Promise<{ accepted: true }> {
  return api('/cabinet/api/email', { method: 'POST', body: { email, password } });
}

/** The page's own words for the refusals a customer meets here (the server's messages are English only). */
const messageOfCode: Record<string, MessageKey> = {
  login_failed: 'password.error.loginFailed',
  email_not_verified: 'password.error.notVerified',
  login_rate_limited: 'password.error.rateLimited',
  user_disabled: 'password.error.userDisabled',
  account_disabled: 'password.error.accountDisabled',
  user_without_account: 'password.error.noAccount',
  signup_closed: 'password.error.signupClosed',
  invite_required: 'password.error.inviteRequired',
  invite_invalid: 'password.error.inviteInvalid',
  email_unavailable: 'password.error.emailUnavailable',
  email_link_invalid: 'password.error.linkInvalid',
  current_password_wrong: 'password.error.currentWrong',
  email_taken: 'password.error.emailTaken',
};

/** The dictionary key for an API refusal, when the page has its own words for it. */
export function messageKeyOf(error: unknown): MessageKey | undefined {
  return error instanceof ApiError && error.code !== null ? messageOfCode[error.code] : undefined;
}
