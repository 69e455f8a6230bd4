// A customer's YooKassa payment as a browser makes it, for the payment tests: the top-up
// started in the cabinet (POST /cabinet/api/payments with a user's session), the simulated
// hosted page loaded and its form posted (plain HTTP, as a browser without script would), and
// what the gateway then holds (the balance, the ledger's rows of a source).
import { readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { parse } from 'yaml';
import type { TestDatabase } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';
import { newMember, userLogin } from '../helpers/users.js';

/** The example config with YooKassa on the built-in simulator (`patch.yookassa` and `patch.payments` merge in). */
export function yookassaConfig(patch: { yookassa?: Record<string, unknown>; payments?: Record<string, unknown>; server?: Record<string, unknown> } = {}): Record<string, any> {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  return {
    ...raw,
    server: { ...raw.server, ...patch.server },
    payments: { yookassa: { shop_id: '1', secret_key_env: 'YOOKASSA_SECRET_KEY', api_url: 'sim', ...patch.yookassa }, ...patch.payments },
  };
}

/** A logged-in browser: its Cookie header and CSRF token. */
export interface Browser {
  readonly cookie: string;
  readonly csrf: string;
}

/** POST /cabinet/api/payments; the answer (201) with its confirmation_url. */
export async function startTopUp(t: ExecutionContext, gatewayUrl: string, browser: Browser, amountRub: string, extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await fetch(`${gatewayUrl}/cabinet/api/payments`, {
    method: 'POST',
    headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'yookassa', amount_rub: amountRub, ...extra }),
  });
  const body = (await response.json()) as Record<string, any>;
  t.is(response.status, 201, JSON.stringify(body));
  return body;
}

/** GET /cabinet/api/payments/:id (asks YooKassa when the payment is still pending). */
export async function readPayment(gatewayUrl: string, browser: Browser, id: string): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${gatewayUrl}/cabinet/api/payments/${id}`, { headers: { cookie: browser.cookie } });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/**
 * Opens the hosted page (`query`: its fault switches, such as `notify=none`), checks it offers
 * both buttons, posts its form with the button pressed and returns where it sent the browser.
 */
export async function completeCheckout(t: ExecutionContext, confirmationUrl: string, action: 'pay' | 'cancel', query = ''): Promise<string> {
  const pageUrl = query ? `${confirmationUrl}?${query}` : confirmationUrl;
  const page = await fetch(pageUrl);
  const html = await page.text();
  t.is(page.status, 200);
  t.regex(html, /<button type="submit" name="action" value="pay">/);
  t.regex(html, /<button type="submit" name="action" value="cancel">/);
  const formAction = /<form method="post" action="([^"]+)">/.exec(html)?.[1]?.replaceAll('&#38;', '&');
  t.truthy(formAction, 'the page has a POST form');
  const posted = await fetch(new URL(formAction!, pageUrl), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ card: '5555 5555 5555 4477', action }), redirect: 'manual' });
  t.is(posted.status, 303);
  return posted.headers.get('location')!;
}

/** A YooKassa notification's body as YooKassa sends one (only the object's id is read). */
export function notificationBody(event: string, object: Record<string, unknown>): string {
  return JSON.stringify({ type: 'notification', event, object });
}

export async function postNotification(gatewayUrl: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${gatewayUrl}/payments/yookassa/notifications`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

export async function balanceUnits(db: Knex, accountId: string): Promise<bigint> {
  return BigInt((await db('accounts').where({ id: accountId }).first()).balance_units);
}

/** The account's ledger rows, oldest first: kind, amount and source. */
export async function ledgerRows(db: Knex, accountId: string): Promise<{ kind: string; amount: bigint; source: string | null }[]> {
  const rows: { kind: string; amount_units: string | number; source: string | null }[] = await db('ledger_transactions').where({ account_id: accountId }).orderBy('id');
  return rows.map((row) => ({ kind: row.kind, amount: BigInt(row.amount_units), source: row.source }));
}

/** A gateway with YooKassa on its simulator, an empty account and its owner logged in. */
export async function openShop(t: ExecutionContext, database: TestDatabase, raw = yookassaConfig()) {
  const clock = testClock();
  const gateway = await startGateway(t, database, { raw, now: clock.now });
  const { accountId, key } = await gateway.newClient();
  const user = await newMember(gateway.services, { accountId, role: 'owner' });
  const browser = await userLogin(gateway.services, { accountId, userId: user.id });
  return { gateway, clock, accountId, key, user, browser, db: database.db };
}

/** The simulated YooKassa API, asked directly (as the shop's own scripts would, with Basic auth). */
export async function simPayment(confirmationUrl: string, providerPaymentId: string): Promise<Record<string, any>> {
  const origin = new URL(confirmationUrl).origin;
  const response = await fetch(`${origin}/yookassa/v3/payments/${providerPaymentId}`, { headers: { authorization: `Basic ${Buffer.from('1:test').toString('base64')}` } });
  return (await response.json()) as Record<string, any>;
}

/** Pays `amountRub` and waits for its credit; the payment's id and YooKassa's. */
export async function paidPayment(t: ExecutionContext, shop: Awaited<ReturnType<typeof openShop>>, amountRub: string) {
  const started = await startTopUp(t, shop.gateway.url, shop.browser, amountRub);
  await completeCheckout(t, started.confirmation_url, 'pay');
  await eventually(async () => (await shop.db('payments').where({ id: started.id }).first()).status === 'succeeded', { what: 'the payment was credited' });
  return started;
}
