// The cabinet's history (GET /cabinet/api/history): the account's ledger as /v1/history pages
// it (same rows, same cursor), filtered by kind, model, key and time, each row with the key
// that caused it; and the same rows as CSV, read page by page so an export of any length is
// streamed in constant memory.
//
// The ledger row does not name a key. A charge (and the refund of it: same request id) is the
// key's whose request it was: the usage record the charge's own settle statement writes (chat,
// media and jobs alike), else the request log (charges settled before media charges had usage
// records). Credits name no key. The key's purpose names the door the charge came through
// (`source`: api, cabinet or bot), as the request log does.
import type { Knex } from 'knex';
import { creditKinds, type TransactionKind } from '../billing/ledger.js';
import { decodeHistoryCursor, encodeHistoryCursor, historyItem, type TransactionRow } from '../billing/history.js';
import { formatRub, unitsFromSql } from '../util/money.js';
import { csvLine } from '../billing/usage-report.js';
import { drainUsageOutbox } from '../billing/usage-outbox.js';
import type { CabinetHistoryItem, CabinetHistoryPage } from './answers.js';

export const transactionKinds: readonly TransactionKind[] = ['charge', ...creditKinds];

export interface HistoryFilter {
  readonly kind?: TransactionKind;
  readonly model?: string;
  /** A key id (`key_…`). */
  readonly key?: string;
  /** Ms since the epoch, inclusive. */
  readonly since?: number;
  /** Ms since the epoch, exclusive. */
  readonly until?: number;
}

interface KeyedRow extends TransactionRow {
  key_id: string | null;
  key_name: string | null;
  key_purpose: string | null;
}

/** The key of a ledger row `l` (see the header); correlated lookups by indexed request id. */
const keyOfRow = `COALESCE(
  (SELECT u.key_id FROM usage_records u WHERE u.request_id = l.request_id AND u.account_id = l.account_id LIMIT 1),
  (SELECT r.key_id FROM request_log r WHERE r.request_id = l.request_id AND r.account_id = l.account_id AND r.key_id IS NOT NULL LIMIT 1))`;

/** The rows matching `filter`, newest first, below transaction `belowId` (a decoded cursor), at most `limit`. */
async function readRows(db: Knex, accountId: string, filter: HistoryFilter, limit: number, belowId: string | undefined): Promise<KeyedRow[]> {
  const inner = db('ledger_transactions as l')
    .select('l.id', 'l.created_at', 'l.kind', 'l.amount_units', 'l.balance_after_units', 'l.model', 'l.description', 'l.request_id', db.raw(`${keyOfRow} AS key_id`))
    .where('l.account_id', accountId);
  if (filter.kind !== undefined) inner.andWhere('l.kind', filter.kind);
  if (filter.model !== undefined) inner.andWhere('l.model', filter.model);
  if (filter.since !== undefined) inner.andWhere('l.created_at', '>=', filter.since);
  if (filter.until !== undefined) inner.andWhere('l.created_at', '<', filter.until);
  if (belowId !== undefined) inner.andWhere('l.id', '<', belowId);
  const query = db
    .from(inner.as('h'))
    .leftJoin('api_keys as k', 'k.id', 'h.key_id')
    .select('h.*', 'k.name as key_name', 'k.purpose as key_purpose')
    .orderBy('h.id', 'desc')
    .limit(limit);
  if (filter.key !== undefined) query.where('h.key_id', filter.key);
  return query;
}

/** Which door a charge came through, by its key's purpose: the cabinet's key, the bot's, or an API key. */
const sourceOf = (purpose: string | null): CabinetHistoryItem['source'] => (purpose === null ? null : purpose === 'cabinet' || purpose === 'bot' ? purpose : 'api');

const keyedItem = (row: KeyedRow): CabinetHistoryItem => ({ ...historyItem(row), key_id: row.key_id ?? null, key_name: row.key_name ?? null, source: sourceOf(row.key_purpose ?? null) });

/** One page: the /v1/history shape, its items with key_id and key_name. InvalidCursorError for a cursor it did not hand out. */
export async function readCabinetHistory(db: Knex, accountId: string, filter: HistoryFilter, page: { limit: number; cursor?: string }): Promise<CabinetHistoryPage> {
  await drainUsageOutbox(db); // every charge's usage record, those SQLite settles left in the outbox too
  const belowId = page.cursor === undefined ? undefined : decodeHistoryCursor(page.cursor);
  const rows = await readRows(db, accountId, filter, page.limit + 1, belowId);
  const items = rows.slice(0, page.limit);
  const hasMore = rows.length > page.limit;
  return { object: 'list', data: items.map(keyedItem), has_more: hasMore, next_cursor: hasMore ? encodeHistoryCursor(String(items.at(-1)!.id)) : null };
}

export const historyCsvColumns = ['id', 'created_at', 'kind', 'amount_rub', 'balance_after_rub', 'model', 'key_id', 'key_name', 'description', 'request_id'] as const;

/** Rows read per query while exporting. */
const exportPageRows = 500;

/**
 * The CSV export (RFC 4180, CRLF, a header row): every row matching `filter`, newest first;
 * times in ISO 8601 UTC, money as exact 4-decimal strings. The first page is read before this
 * returns, so a failing database is an error answer, not a cut-off file; later pages are read
 * as the client takes the text (keyset paging by id: rows added meanwhile are newer than the
 * first page and never show up, so the file is one consistent cut of the ledger).
 */
export async function historyCsv(db: Knex, accountId: string, filter: HistoryFilter): Promise<AsyncGenerator<string>> {
  await drainUsageOutbox(db); // every charge's usage record, those SQLite settles left in the outbox too
  const first = await readRows(db, accountId, filter, exportPageRows, undefined);
  async function* lines(): AsyncGenerator<string> {
    yield csvLine(historyCsvColumns);
    let rows = first;
    for (;;) {
      if (rows.length > 0) yield rows.map(csvRow).join('');
      if (rows.length < exportPageRows) return;
      rows = await readRows(db, accountId, filter, exportPageRows, String(rows.at(-1)!.id));
    }
  }
  return lines();
}

function csvRow(row: KeyedRow): string {
  return csvLine([
    `txn_${row.id}`,
    new Date(Number(row.created_at)).toISOString(),
    row.kind,
    formatRub(unitsFromSql(row.amount_units)),
    formatRub(unitsFromSql(row.balance_after_units)),
    row.model,
    row.key_id,
    row.key_name,
    row.description,
    row.request_id,
  ]);
}

/**
 * A time bound of the history filter: `2026-11-01` (UTC midnight), an ISO 8601 time with its
 * zone, or Unix seconds (what created_at shows). Ms since the epoch, or undefined when it is
 * none of these.
 */
export function parseTimeBound(text: string): number | undefined {
  if (/^\d{1,12}$/.test(text)) return Number(text) * 1000;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return orUndefined(Date.parse(`${text}T00:00:00Z`));
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return orUndefined(Date.parse(text));
  return undefined;
}

const orUndefined = (ms: number) => (Number.isNaN(ms) ? undefined : ms);
