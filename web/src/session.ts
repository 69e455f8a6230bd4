// The signed-in session as the server describes it (POST /cabinet/api/login, GET
// /cabinet/api/session): its kind decides which pages exist, its CSRF token goes on every
// request that changes something.
import { api, ApiError, setCsrfToken } from './api.js';

export interface Session {
  readonly kind: 'account' | 'admin';
  readonly account: { readonly id: string; readonly name: string } | null;
  /** The signed-in user; null for a session of an operator's login link and for the console. */
  readonly user: { readonly id: string } | null;
  /** owner: everything; member: no money, members or account details. null for the console. */
  readonly role: 'owner' | 'member' | null;
  readonly method: 'link' | 'password' | 'oidc' | 'telegram';
  /** Every account the user is a member of (to switch between); empty without a user. */
  readonly accounts?: readonly { readonly id: string; readonly name: string; readonly role: 'owner' | 'member' }[];
  readonly csrf_token: string;
  readonly expires_at: number | string;
}

/** GET /cabinet/api/login-options: the ways in this gateway offers. */
export interface LoginOptions {
  readonly signup: 'closed' | 'invite' | 'open';
  /** Email and password (email is configured). */
  readonly password: boolean;
  readonly oidc: readonly { readonly name: string; readonly label: string }[];
  readonly telegram: { readonly bot_username: string; readonly bot_id: string } | null;
}

export function loadLoginOptions(): Promise<LoginOptions> {
  return api<LoginOptions>('/cabinet/api/login-options');
}

/** The live session, or null when there is none (401). */
export async function loadSession(): Promise<Session | null> {
  try {
    const session = await api<Session>('/cabinet/api/session');
    setCsrfToken(session.csrf_token);
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

/** Redeems a one-time login link's token. */
export async function logIn(token: string): Promise<Session> {
  const session = await api<Session>('/cabinet/api/login', { method: 'POST', body: { token } });
  setCsrfToken(session.csrf_token);
  return session;
}

export async function logOut(): Promise<void> {
  await api<void>('/cabinet/api/logout', { method: 'POST' });
  setCsrfToken(undefined);
}

/** The token of a login link's fragment (`#token=gwl_…`), if any. */
export function tokenOfFragment(hash: string): string | undefined {
  const fragment = hash.startsWith('#') ? hash.slice(1) : hash;
  const token = new URLSearchParams(fragment).get('token');
  return token ? token : undefined;
}

/** Moves a user's session to another of their accounts (a new session: its CSRF token replaces the old). */
export async function switchAccount(accountId: string): Promise<Session> {
  const session = await api<Session>('/cabinet/api/session/account', { method: 'POST', body: { account_id: accountId } });
  setCsrfToken(session.csrf_token);
  return session;
}
