// Balance history (GET /v1/history, `gateway balance history`): the account's ledger,
// newest first, paged by an opaque cursor over the monotonic transaction id. New rows get
// higher ids, so pages taken during concurrent inserts never overlap or skip.
import type { Knex } from 'knex';
import { InvalidCursorError } from '../util/invalid-cursor-error.js';
import type { HistoryItem, HistoryPage } from './history-item.js';
import { formatRub, unitsFromSql } from '../util/money.js';

export type { HistoryItem, HistoryPage } from './history-item.js';

/** The opaque cursor of a history page (also the cabinet's filtered history: src/cabinet-api/history.ts). */
export const encodeHistoryCursor = (id: string) => Buffer.from(`txn:${id}`).toString('base64url');

/** The transaction id a cursor continues below; InvalidCursorError for one this API did not hand out. */
export function decodeHistoryCursor(cursor: string): string {
  const match = /^txn:(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new InvalidCursorError('the cursor is not one this endpoint returned', cursor);
  return match[1]!;
}

export interface TransactionRow {
  id: string | number;
  created_at: string | number;
  kind: string;
  amount_units: string | number;
  balance_after_units: string | number;
  model: string | null;
  description: string | null;
  request_id: string | null;
}

export async function readHistory(db: Knex, accountId: string, options: { limit: number; cursor?: string }): Promise<HistoryPage> {
  const query = db('ledger_transactions')
    .select('id', 'created_at', 'kind', 'amount_units', 'balance_after_units', 'model', 'description', 'request_id')
    .where({ account_id: accountId })
    .orderBy('id', 'desc')
    .limit(options.limit + 1);
  if (options.cursor) query.andWhere('id', '<', decodeHistoryCursor(options.cursor));
  const rows: TransactionRow[] = await query;
  const page = rows.slice(0, options.limit);
  const hasMore = rows.length > options.limit;
  return {
    object: 'list',
    data: page.map(historyItem),
    has_more: hasMore,
    next_cursor: hasMore ? encodeHistoryCursor(String(page.at(-1)!.id)) : null,
  };
}

/** A ledger row as the history shows it: money as exact 4-decimal strings. */
export function historyItem(row: TransactionRow): HistoryItem {
  return {
    id: `txn_${row.id}`,
    object: 'balance.transaction',
    created_at: Math.floor(Number(row.created_at) / 1000),
    kind: row.kind,
    amount_rub: formatRub(unitsFromSql(row.amount_units)),
    balance_after_rub: formatRub(unitsFromSql(row.balance_after_units)),
    model: row.model,
    description: row.description,
    request_id: row.request_id,
  };
}
