// Reads both sides of `gateway reconcile payments` for a period and compares them
// (reconcile-payments.ts): each provider's payments made in the period (provider.list), and
// ours — the payment rows made or paid in the period, their topup rows (found by their unique
// source, `payment:<provider>:<id>`, so the ledger's index answers) and their succeeded refunds.
// A payment one side names and the other did not list for the period (made before it and paid
// in it, or clocks that differ at its edges) is fetched from the provider by its id, so every
// payment is compared whole, once.
import type { Knex } from 'knex';
import { unitsFromSql } from '../util/money.js';
import { paymentSource } from './credit-sources.js';
import { ProviderRefusedError, type PaymentProvider, type ProviderPayment } from './provider.js';
import { comparePayments, unreadableProvider, type LedgerCredit, type LedgerPayment, type LedgerRefund, type PaymentDifference } from './reconcile-payments.js';

export interface PaymentReconciliation {
  readonly since: number;
  readonly until: number;
  /** How many of each provider's payments were compared. */
  readonly checked: Record<string, number>;
  readonly differences: PaymentDifference[];
}

/** The provider did not answer (network, 5xx, a refused key): nothing of it can be compared. */
class ProviderUnreadable extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** Rows at a time in an IN (…) list: under SQLite's bound-variable limit. */
const chunkSize = 500;

async function inChunks<Row>(values: readonly string[], read: (chunk: string[]) => Promise<Row[]>): Promise<Row[]> {
  const rows: Row[] = [];
  for (let start = 0; start < values.length; start += chunkSize) rows.push(...(await read(values.slice(start, start + chunkSize))));
  return rows;
}

interface PaymentRow {
  id: string;
  account_id: string;
  provider_payment_id: string | null;
  status: LedgerPayment['status'];
  currency: string;
  rate: string | null;
}

const ledgerPayment = (row: PaymentRow): LedgerPayment => ({ id: row.id, accountId: row.account_id, providerPaymentId: row.provider_payment_id, status: row.status, currency: row.currency, rate: row.rate });
const paymentColumns = ['id', 'account_id', 'provider_payment_id', 'status', 'currency', 'rate'];

async function readLedger(db: Knex, provider: string, period: { since: number; until: number }, listed: readonly ProviderPayment[]) {
  const rows = new Map<string, LedgerPayment>();
  const inPeriod: PaymentRow[] = await db('payments')
    .select(paymentColumns)
    .where({ provider })
    .andWhere((where) => where.whereBetween('created_at', [period.since, period.until - 1]).orWhereBetween('paid_at', [period.since, period.until - 1]));
  for (const row of inPeriod) rows.set(row.id, ledgerPayment(row));
  const named: PaymentRow[] = [
    ...(await inChunks(listed.map((payment) => payment.id), (ids) => db('payments').select(paymentColumns).where({ provider }).whereIn('provider_payment_id', ids))),
    ...(await inChunks(listed.flatMap((payment) => payment.reference ?? []), (ids) => db('payments').select(paymentColumns).where({ provider }).whereIn('id', ids))),
  ];
  for (const row of named) rows.set(row.id, ledgerPayment(row));
  const providerIds = new Set([...listed.map((payment) => payment.id), ...[...rows.values()].flatMap((row) => row.providerPaymentId ?? [])]);
  const creditRows: { source: string; account_id: string; amount_units: string | number; request_id: string | null }[] = await inChunks(
    [...providerIds].map((id) => paymentSource(provider, id)),
    (sources) => db('ledger_transactions').select('source', 'account_id', 'amount_units', 'request_id').where({ kind: 'topup' }).whereIn('source', sources),
  );
  const prefix = paymentSource(provider, '');
  const credits: LedgerCredit[] = creditRows.map((row) => ({ providerPaymentId: row.source.slice(prefix.length), accountId: row.account_id, units: unitsFromSql(row.amount_units), paymentId: row.request_id }));
  const refundRows: { payment_id: string; amount_minor: string | number; share_units: string | number }[] = await inChunks([...rows.keys()], (ids) =>
    db('payment_refunds').select('payment_id', 'amount_minor', 'share_units').where({ status: 'succeeded' }).whereIn('payment_id', ids),
  );
  const refunds: LedgerRefund[] = refundRows.map((row) => ({ paymentId: row.payment_id, amountMinor: BigInt(row.amount_minor), shareUnits: unitsFromSql(row.share_units) }));
  return { payments: [...rows.values()], credits, refunds };
}

async function reconcileProvider(db: Knex, provider: PaymentProvider, period: { since: number; until: number }): Promise<{ checked: number; differences: PaymentDifference[] }> {
  const listed: ProviderPayment[] = [];
  try {
    for await (const payment of provider.list(period.since)) if (payment.createdAt >= period.since && payment.createdAt < period.until) listed.push(payment);
  } catch (error) {
    throw new ProviderUnreadable(error);
  }
  const ledger = await readLedger(db, provider.name, period, listed);
  // What the ledger names that the provider did not list for the period: asked one by one.
  const listedIds = new Set(listed.map((payment) => payment.id));
  const missing = new Set([...ledger.payments.flatMap((row) => row.providerPaymentId ?? []), ...ledger.credits.map((credit) => credit.providerPaymentId)].filter((id) => !listedIds.has(id)));
  const fetched: ProviderPayment[] = [];
  const unknownAtProvider: string[] = [];
  for (const id of missing) {
    try {
      fetched.push(await provider.fetch(id));
    } catch (error) {
      // 404: the provider does not know it. Anything else (unreachable, a refused key): the whole provider is unread.
      if (!(error instanceof ProviderRefusedError && error.status === 404)) throw new ProviderUnreadable(error);
      unknownAtProvider.push(id);
    }
  }
  const reported = [...listed, ...fetched];
  return { checked: reported.length, differences: comparePayments({ provider: provider.name, rubRate: provider.rubRate, reported, unknownAtProvider }, ledger) };
}

/** Every difference between the ledger and the given providers for payments of [since, until). A provider that cannot be read is one `provider_unreadable` difference. */
export async function reconcilePayments(db: Knex, providers: readonly PaymentProvider[], period: { since: number; until: number }): Promise<PaymentReconciliation> {
  const checked: Record<string, number> = {};
  const differences: PaymentDifference[] = [];
  for (const provider of providers) {
    try {
      const result = await reconcileProvider(db, provider, period);
      checked[provider.name] = result.checked;
      differences.push(...result.differences);
    } catch (error) {
      if (!(error instanceof ProviderUnreadable)) throw error; // the database's: the run fails
      checked[provider.name] = 0;
      differences.push(unreadableProvider(provider.name, error.message));
    }
  }
  return { since: period.since, until: period.until, checked, differences };
}
