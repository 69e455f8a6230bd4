// Shared by the Stripe tests: a gateway whose payments.stripe is the built-in simulator (USD at
// 92.50 RUB), a customer logged in to the cabinet, a top-up started over HTTP, the simulated
// Checkout page paid over plain HTTP, and the simulator's record of the events it signed.
import { readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import { parse } from 'yaml';
import type { TestDatabase } from '../helpers/backends.js';
import { exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';
import { newMember, userLogin } from '../helpers/users.js';

/** Any sk_test_ key: the simulator plays one account for all. */
export const simulatorKey = 'sk_test_tests';

/** The example config with Stripe through the simulator; `sweep_after` long, so only a test's own sweep() looks at pending payments. */
export function stripeGatewayConfig(): Record<string, any> {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  return {
    ...raw,
    payments: {
      sweep_after: '1h',
      stripe: { secret_key_env: 'STRIPE_SECRET_KEY', webhook_secret_env: 'STRIPE_WEBHOOK_SECRET', currency: 'usd', rub_rate: '92.50', api_url: 'sim' },
    },
  };
}

export interface Customer {
  readonly accountId: string;
  readonly cookie: string;
  readonly csrf: string;
}

export async function startStripeGateway(t: ExecutionContext, database: TestDatabase, options: { now?: () => number } = {}): Promise<TestGateway> {
  return startGateway(t, database, { raw: stripeGatewayConfig(), now: options.now });
}

/** A new account with no money and a member logged in to the cabinet. */
export async function newCustomer(gateway: TestGateway): Promise<Customer> {
  const { accountId } = await gateway.newClient();
  const user = await newMember(gateway.services, { accountId, role: 'owner' });
  const { cookie, csrf } = await userLogin(gateway.services, { accountId, userId: user.id });
  return { accountId, cookie, csrf };
}

export async function cabinetCall(gateway: TestGateway, customer: Customer, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { cookie: customer.cookie, 'x-csrf-token': customer.csrf };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gateway.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

export interface StartedTopUp {
  readonly paymentId: string;
  readonly sessionId: string;
  readonly checkoutUrl: string;
  /** http://127.0.0.1:PORT of the simulator the gateway runs. */
  readonly simulatorOrigin: string;
  readonly body: any;
}

/** POST /cabinet/api/payments {provider: stripe, amount_rub}: the payment and where the browser goes. */
export async function startTopUp(t: ExecutionContext, gateway: TestGateway, customer: Customer, amountRub: string): Promise<StartedTopUp> {
  const created = await cabinetCall(gateway, customer, 'POST', '/cabinet/api/payments', { provider: 'stripe', amount_rub: amountRub });
  t.is(created.status, 201, JSON.stringify(created.body));
  const checkoutUrl: string = created.body.confirmation_url;
  return { paymentId: created.body.id, sessionId: created.body.provider_payment_id, checkoutUrl, simulatorOrigin: new URL(checkoutUrl).origin, body: created.body };
}

/** The browser on the simulated Checkout page: Pay (or Cancel); answers the redirect. `notify: 'none'` holds the webhook. */
export async function submitCheckout(checkoutUrl: string, action: 'pay' | 'cancel', options: { notify?: 'none'; card?: string } = {}): Promise<{ status: number; location: string | null; text: string }> {
  const url = options.notify ? `${checkoutUrl}?notify=${options.notify}` : checkoutUrl;
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ action, card: options.card ?? '4242 4242 4242 4242' }), redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

export interface SimulatedDelivery {
  readonly eventId: string;
  readonly type: string;
  readonly url: string;
  readonly payload: string;
  readonly signature: string;
  readonly held: boolean;
  readonly delivered: boolean;
  readonly attempts: { status: number | null; error: string | null }[];
}

/** The events the simulator signed for a session (sent, or held by `?notify=none`). */
export async function deliveriesOf(simulatorOrigin: string, sessionId: string): Promise<SimulatedDelivery[]> {
  const response = await fetch(`${simulatorOrigin}/stripe/__sim/deliveries?session=${encodeURIComponent(sessionId)}`, { headers: { authorization: `Bearer ${simulatorKey}` } });
  if (response.status !== 200) throw new Error(`the simulator's deliveries answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: SimulatedDelivery[] }).data;
}

/** POSTs a webhook to the gateway as Stripe would (the exact bytes, the signature header as given). */
export async function postNotification(gateway: TestGateway, payload: string, signature: string | undefined): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (signature !== undefined) headers['stripe-signature'] = signature;
  const response = await fetch(`${gateway.url}/payments/stripe/notifications`, { method: 'POST', headers, body: payload });
  return { status: response.status, body: await response.json() };
}

/** The account's ledger rows, oldest first, as the tests compare them. */
export async function ledgerRows(gateway: TestGateway, accountId: string): Promise<{ kind: string; amount_units: bigint; source: string | null }[]> {
  const rows: { kind: string; amount_units: string | number; source: string | null }[] = await gateway.services.db('ledger_transactions').where({ account_id: accountId }).orderBy('id').select('kind', 'amount_units', 'source');
  return rows.map((row) => ({ kind: row.kind, amount_units: BigInt(row.amount_units), source: row.source }));
}

export async function paymentRow(gateway: TestGateway, paymentId: string): Promise<Record<string, any>> {
  return gateway.services.db('payments').where({ id: paymentId }).first();
}

export async function balanceUnits(gateway: TestGateway, accountId: string): Promise<bigint> {
  const account: { balance_units: string | number } = await gateway.services.db('accounts').where({ id: accountId }).first('balance_units');
  return BigInt(account.balance_units);
}

/** Stripe's API at the simulator, as the operator's dashboard (or a script of theirs) would call it. */
export async function simulatorApi(simulatorOrigin: string, method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${simulatorKey}` };
  if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const response = await fetch(`${simulatorOrigin}/stripe${path}`, { method, headers, body: form ? new URLSearchParams(form) : undefined });
  return { status: response.status, body: await response.json() };
}
