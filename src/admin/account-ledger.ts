// An account's ledger as the operator reads it (GET /admin/v1/accounts/:id/transactions, the
// console's account page): the rows of `gateway balance history` and GET /v1/history, newest
// first, paged by the same cursor, and for each charge the refund that gave it back, if any —
// so the console offers "Refund" only on a charge not refunded yet. A refund row carries its
// charge's hold_id (src/billing/corrections.ts), and the unique index (hold_id, kind) finds it.
import type { Knex } from 'knex';
import { decodeHistoryCursor, encodeHistoryCursor, historyItem, type TransactionRow } from '../billing/history.js';
import type { HistoryItem } from '../billing/history-item.js';

export interface AccountTransaction extends HistoryItem {
  /** For a charge given back: the refund's id (txn_…); null for a charge not refunded and for every other kind. */
  readonly refunded_by: string | null;
}

export interface AccountLedgerPage {
  readonly object: 'list';
  readonly data: AccountTransaction[];
  readonly has_more: boolean;
  readonly next_cursor: string | null;
}

export async function readAccountLedger(db: Knex, accountId: string, options: { limit: number; cursor?: string }): Promise<AccountLedgerPage> {
  const query = db('ledger_transactions as t')
    .leftJoin('ledger_transactions as r', function joinRefund() {
      this.on('r.hold_id', '=', 't.hold_id').andOnVal('r.kind', '=', 'refund').andOnVal('t.kind', '=', 'charge');
    })
    .select('t.id', 't.created_at', 't.kind', 't.amount_units', 't.balance_after_units', 't.model', 't.description', 't.request_id', 'r.id as refund_id')
    .where('t.account_id', accountId)
    .orderBy('t.id', 'desc')
    .limit(options.limit + 1);
  // A cursor it did not hand out is InvalidCursorError: 422 on `cursor`.
  if (options.cursor) query.andWhere('t.id', '<', decodeHistoryCursor(options.cursor));
  const rows: (TransactionRow & { refund_id: string | number | null })[] = await query;
  const page = rows.slice(0, options.limit);
  const hasMore = rows.length > options.limit;
  return {
    object: 'list',
    data: page.map((row) => ({ ...historyItem(row), refunded_by: row.refund_id === null ? null : `txn_${row.refund_id}` })),
    has_more: hasMore,
    next_cursor: hasMore ? encodeHistoryCursor(String(page.at(-1)!.id)) : null,
  };
}
