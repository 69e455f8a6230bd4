// The operator's reading of payments (the admin API, `gateway payments ls/show`): each payment
// with its account's name and its refunds. Straight from the database, so the lists work
// whatever providers this process could open (the CLI opens none to list), and for payments of
// a provider no longer configured.
import type { Knex } from 'knex';
import { refundFromRow, type PaymentRefund, type RefundRow } from './payment-refunds.js';
import { paymentFromRow, type Payment, type PaymentStatus } from './payments.js';

export interface PaymentRecord {
  readonly payment: Payment;
  readonly accountName: string;
  /** Oldest first. */
  readonly refunds: readonly PaymentRefund[];
}

export interface PaymentFilter {
  readonly status?: PaymentStatus;
  readonly accountId?: string;
  /** Only payments older than this one (its id): the last id of the page before. */
  readonly before?: string;
  readonly limit: number;
}

type PaymentRow = Parameters<typeof paymentFromRow>[0] & { account_name: string };

async function withRefunds(db: Knex, rows: PaymentRow[]): Promise<PaymentRecord[]> {
  const refunds = new Map<string, PaymentRefund[]>();
  if (rows.length > 0) {
    const refundRows: RefundRow[] = await db('payment_refunds').whereIn('payment_id', rows.map((row) => row.id)).orderBy('id');
    for (const row of refundRows) refunds.set(row.payment_id, [...(refunds.get(row.payment_id) ?? []), refundFromRow(row)]);
  }
  return rows.map((row) => ({ payment: paymentFromRow(row), accountName: row.account_name, refunds: refunds.get(row.id) ?? [] }));
}

const withAccount = (db: Knex) => db('payments').join('accounts', 'accounts.id', 'payments.account_id').select('payments.*', 'accounts.name as account_name');

/** Newest first (ids sort by creation time); `limit + 1` rows tell a caller whether there are more. */
export async function listPaymentRecords(db: Knex, filter: PaymentFilter): Promise<PaymentRecord[]> {
  const query = withAccount(db).orderBy('payments.id', 'desc').limit(filter.limit);
  if (filter.status) query.andWhere('payments.status', filter.status);
  if (filter.accountId) query.andWhere('payments.account_id', filter.accountId);
  if (filter.before) query.andWhere('payments.id', '<', filter.before);
  return withRefunds(db, (await query) as PaymentRow[]);
}

export async function findPaymentRecord(db: Knex, id: string): Promise<PaymentRecord | undefined> {
  const row = (await withAccount(db).where('payments.id', id).first()) as PaymentRow | undefined;
  return row && (await withRefunds(db, [row]))[0];
}
