// Logging in to the web cabinet in a test, the way an operator and a browser do: a login link
// made by the same service call `gateway cabinet link` makes, redeemed by POST
// /cabinet/api/login over HTTP. Returns what a browser then holds: the session cookie (as a
// Cookie header value) and the CSRF token to send as x-csrf-token. And admin tokens, made as
// `gateway admin tokens create` makes them.
import type { Knex } from 'knex';
import { Accounts } from '../../src/accounts/accounts.js';
import { ApiKeys } from '../../src/auth/api-keys.js';
import { type Cabinet, openCabinet } from '../../src/cabinet/cabinet.js';
import { loadConfig } from '../../src/config/load.js';

/** Where the helper finds the cabinet: a gateway's services (its clock and settings), or a bare database (defaults, real time). */
export type CabinetSource = { readonly db: Knex; readonly cabinet: Cabinet } | Knex;

export interface CabinetLogin {
  /** The Cookie header value: `gateway_session=gws_…`. */
  readonly cookie: string;
  /** The session's CSRF token, for the x-csrf-token header of non-GET requests. */
  readonly csrf: string;
  /** The whole POST /cabinet/api/login answer ({kind, account, csrf_token, expires_at}). */
  readonly session: { kind: 'account' | 'admin'; account: { id: string; name: string } | null; csrf_token: string; expires_at: string };
}

/** The actor the helper's links and tokens are made by (audit rows). */
export const testActor = 'test:cabinet-helper';

function cabinetOf(source: CabinetSource): { db: Knex; cabinet: Cabinet } {
  if (typeof source !== 'function') return source;
  const config = loadConfig({ raw: {}, env: {} });
  return { db: source, cabinet: openCabinet(source, new ApiKeys(source, config.keys.prefix), config.cabinet, Date.now) };
}

/** A login link's token for an account (id or name) or the operator console, as `gateway cabinet link` makes it. */
export async function loginLinkToken(source: CabinetSource, who: { account: string } | { admin: true }): Promise<string> {
  const { db, cabinet } = cabinetOf(source);
  const accountId = 'account' in who ? (await new Accounts(db).find(who.account)).id : null;
  const { token } = await cabinet.links.create({ kind: accountId === null ? 'admin' : 'account', accountId, actor: testActor });
  return token;
}

/** Logs in over HTTP with a fresh link; fails the test (throws) unless the gateway answers 200 with a cookie. */
export async function loginAs(gatewayUrl: string, source: CabinetSource, who: { account: string } | { admin: true }): Promise<CabinetLogin> {
  const token = await loginLinkToken(source, who);
  const response = await fetch(`${gatewayUrl}/cabinet/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /cabinet/api/login answered ${response.status}: ${text}`);
  const setCookie = response.headers.getSetCookie()[0];
  if (!setCookie) throw new Error('POST /cabinet/api/login set no cookie');
  const session = JSON.parse(text) as CabinetLogin['session'];
  return { cookie: setCookie.split(';')[0]!, csrf: session.csrf_token, session };
}

/** Request headers of a logged-in browser: the cookie and, for requests other than GET/HEAD, the CSRF token. */
export function cabinetHeaders(login: CabinetLogin, extra: Record<string, string> = {}): Record<string, string> {
  return { cookie: login.cookie, 'x-csrf-token': login.csrf, ...extra };
}

/** An admin token (`Authorization: Bearer <token>`), as `gateway admin tokens create` makes it. */
export async function createAdminToken(source: CabinetSource, name = 'test'): Promise<{ id: string; token: string }> {
  const { cabinet } = cabinetOf(source);
  const { adminToken, token } = await cabinet.adminTokens.create({ name, actor: testActor });
  return { id: adminToken.id, token };
}
