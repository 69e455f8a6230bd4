// The payment part of a chaos round (issue 32): customers top up through the simulated
// YooKassa while serve processes are killed and the database is cut. A payment is created in
// the cabinet, then paid (its notifications delivered normally, twice, or never), cancelled or
// abandoned on the provider's page, and some notifications are replayed in concurrent copies to
// both serve processes. Afterwards (checkPayments) every payment paid at the provider is
// credited exactly once (a lost notification is found by the sweeper), nothing cancelled or
// abandoned is credited, and every payment credit belongs to a succeeded payment.
import type { Knex } from 'knex';
import { type CabinetLogin, loginAs } from '../helpers/cabinet.js';
import { parseJson, send } from './client.js';
import type { Random } from './random.js';

/** The simulated shop's credentials (any pair works: it is not a vault). */
export const simulatedShop = { shopId: '1', secretKey: 'chaos-yookassa-secret' };

/** What the gateway config needs to take payments through the simulator process at `simulatorUrl`. */
export function chaosPaymentsConfig(simulatorUrl: string): Record<string, unknown> {
  return { sweep_after: '2s', yookassa: { shop_id: simulatedShop.shopId, secret_key_env: 'YOOKASSA_SECRET_KEY', api_url: `${simulatorUrl}/yookassa/v3` } };
}

export type PaymentOutcome = 'paid' | 'paid-twice-notified' | 'paid-unnotified' | 'cancelled' | 'abandoned';

export interface ChaosPayment {
  readonly id: string;
  readonly providerPaymentId: string;
  readonly outcome: PaymentOutcome;
  /** False when the provider's page did not answer (a cut): what happened there is unknown. */
  readonly settledAtProvider: boolean;
}

const basic = `Basic ${Buffer.from(`${simulatedShop.shopId}:${simulatedShop.secretKey}`).toString('base64')}`;

/**
 * Where the simulated shop sends notifications: the serve processes' current addresses (a
 * restarted serve listens on a new port; the old subscription is removed), as an operator
 * enters the URL in the YooKassa dashboard.
 */
export class NotificationSubscriptions {
  private readonly byUrl = new Map<string, string[]>();

  constructor(private readonly simulatorUrl: string) {}

  async follow(urls: readonly string[]): Promise<void> {
    for (const [url, ids] of this.byUrl) {
      if (urls.includes(url)) continue;
      for (const id of ids) await fetch(`${this.simulatorUrl}/yookassa/v3/webhooks/${id}`, { method: 'DELETE', headers: { authorization: basic } });
      this.byUrl.delete(url);
    }
    for (const url of urls) {
      if (this.byUrl.has(url)) continue;
      const ids: string[] = [];
      for (const event of ['payment.succeeded', 'payment.canceled']) {
        const response = await fetch(`${this.simulatorUrl}/yookassa/v3/webhooks`, {
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/json', 'idempotence-key': `${url}:${event}` },
          body: JSON.stringify({ event, url: `${url}/payments/yookassa/notifications` }),
        });
        if (!response.ok) throw new Error(`the simulated shop refused a webhook: ${response.status} ${await response.text()}`);
        ids.push(((await response.json()) as { id: string }).id);
      }
      this.byUrl.set(url, ids);
    }
  }
}

/** A logged-in cabinet per account (sessions live in the database, so any serve honours them). */
export async function cabinetLogins(gatewayUrl: string, db: Knex, accountIds: readonly string[]): Promise<Map<string, CabinetLogin>> {
  const logins = new Map<string, CabinetLogin>();
  for (const id of accountIds) logins.set(id, await loginAs(gatewayUrl, db, { account: id }));
  return logins;
}

/** One customer's top-up, from the cabinet to the provider's page; undefined when the gateway did not answer with a payment. */
export async function topUp(serveUrls: () => string[], login: CabinetLogin, random: Random, timeoutMs: number): Promise<ChaosPayment | undefined> {
  const urls = serveUrls();
  if (urls.length === 0) return undefined;
  const amount = random.pick(['100', '250.50', '1000', '5200']);
  const created = await send(
    random.pick(urls),
    { method: 'POST', path: '/cabinet/api/payments', json: { provider: 'yookassa', amount_rub: amount }, headers: { cookie: login.cookie, 'x-csrf-token': login.csrf } },
    timeoutMs,
  );
  const payment = created.status === 201 ? parseJson(created.body) : undefined;
  if (!payment?.confirmation_url || !payment.provider_payment_id) return undefined;
  const outcome = random.weighted<PaymentOutcome>([
    ['paid', 4],
    ['paid-twice-notified', 1],
    ['paid-unnotified', 2],
    ['cancelled', 2],
    ['abandoned', 1],
  ]);
  let settledAtProvider = true;
  if (outcome !== 'abandoned') {
    const notify = outcome === 'paid-twice-notified' ? '?notify=twice' : outcome === 'paid-unnotified' ? '?notify=none' : '';
    const page = await fetch(`${payment.confirmation_url}${notify}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `action=${outcome === 'cancelled' ? 'cancel' : 'pay'}`,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    }).catch(() => undefined);
    settledAtProvider = page?.status === 303;
  }
  // A client (or an attacker) replaying the notification in concurrent copies to every serve: it only ever makes the gateway look.
  if (outcome !== 'abandoned' && random.chance(0.5)) {
    const body = { type: 'notification', event: outcome === 'cancelled' ? 'payment.canceled' : 'payment.succeeded', object: { id: payment.provider_payment_id, status: 'succeeded' } };
    await Promise.all(
      Array.from({ length: random.int(5, 20) }, () => {
        const live = serveUrls();
        return live.length === 0 ? undefined : send(random.pick(live), { method: 'POST', path: '/payments/yookassa/notifications', json: body }, timeoutMs);
      }),
    );
  }
  return { id: payment.id, providerPaymentId: payment.provider_payment_id, outcome, settledAtProvider };
}

export interface PaymentProblem {
  readonly kind: 'payments credited twice' | 'payments paid, not credited' | 'payments credited without being paid';
  readonly id: string;
  readonly detail: string;
}

/** Every payment of the run checked against the ledger; `ready` says whether the ones paid at the provider are all credited yet. */
export async function paymentProblems(db: Knex, payments: readonly ChaosPayment[]): Promise<{ problems: PaymentProblem[]; pendingPaid: number }> {
  const problems: PaymentProblem[] = [];
  const rows: { id: string; status: string; provider_payment_id: string | null; credited_units: string | number | null }[] = await db('payments').select('id', 'status', 'provider_payment_id', 'credited_units');
  const credits: { source: string; count: string | number; total: string | number }[] = await db('ledger_transactions')
    .where({ kind: 'topup' })
    .andWhere('source', 'like', 'payment:%')
    .groupBy('source')
    .select('source', db.raw('count(*) as count'), db.raw('sum(amount_units) as total'));
  const creditOf = new Map(credits.map((credit) => [credit.source, { count: Number(credit.count), total: BigInt(credit.total) }]));
  const rowOf = new Map(rows.map((row) => [row.id, row]));
  for (const row of rows) {
    const credit = row.provider_payment_id === null ? undefined : creditOf.get(`payment:yookassa:${row.provider_payment_id}`);
    if (credit && credit.count > 1) problems.push({ kind: 'payments credited twice', id: row.id, detail: `${row.id} has ${credit.count} top-up rows` });
    const credited = row.status === 'succeeded' || row.status === 'refunded';
    if (credited && (!credit || credit.total !== BigInt(row.credited_units ?? -1))) problems.push({ kind: 'payments paid, not credited', id: row.id, detail: `${row.id} is ${row.status} but its top-up row ${credit ? `adds ${credit.total}, not ${row.credited_units}` : 'is missing'}` });
    if (!credited && credit) problems.push({ kind: 'payments credited without being paid', id: row.id, detail: `${row.id} is ${row.status} but was credited ${credit.total}` });
  }
  const ours = new Set(rows.map((row) => `payment:yookassa:${row.provider_payment_id}`));
  for (const credit of credits) if (!ours.has(credit.source)) problems.push({ kind: 'payments credited without being paid', id: credit.source, detail: `${credit.source} credited with no payment of this gateway` });
  let pendingPaid = 0;
  for (const payment of payments) {
    const row = rowOf.get(payment.id);
    const paid = payment.outcome.startsWith('paid') && payment.settledAtProvider;
    if (paid && row?.status !== 'succeeded') pendingPaid++;
    if (paid && row && row.status !== 'succeeded' && row.status !== 'pending') problems.push({ kind: 'payments paid, not credited', id: payment.id, detail: `${payment.id} was paid at the provider but is ${row.status}` });
    if ((payment.outcome === 'cancelled' || payment.outcome === 'abandoned') && row?.status === 'succeeded') problems.push({ kind: 'payments credited without being paid', id: payment.id, detail: `${payment.id} was ${payment.outcome} at the provider but credited` });
  }
  return { problems, pendingPaid };
}
