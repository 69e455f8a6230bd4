// The request log as the operator reads it (GET /admin/v1/request-log, `gateway requests ls`):
// newest first, filtered by status (a code, a class such as 5xx, `error`: 400 and above,
// `failed`: those and streams that failed after their first byte, or `ok`: the rest), model,
// key, account, source (the API's traffic, the web cabinet's page calls or the Telegram bot's) and time,
// paged by id (the next page continues below the last id seen, so pages never overlap or skip
// while rows are added). A failed request shows the error it was answered with and, when an
// upstream failed, the upstream's status (migrations/20261126010000_request_log_failures.ts).
import type { Knex } from 'knex';
import { formatRub, unitsFromSql } from '../util/money.js';
import type { RequestSource } from '../observability/request-source.js';

/** What the status filter takes: a code (502), a class (5xx), error, failed or ok. */
export const requestStatusPattern = /^([1-5]\d\d|[1-5]xx|error|failed|ok)$/;
export const requestStatusHint = 'a code (502), a class (4xx, 5xx), error (every status from 400), failed (every request answered with an error: from 400, or a stream that failed after its first byte) or ok (the others)';

export interface RequestLogFilter {
  /** `502`, `5xx`, `error`, `failed` or `ok`. */
  readonly status?: string;
  readonly model?: string;
  readonly keyId?: string;
  readonly accountId?: string;
  readonly source?: RequestSource;
  /** Answered at or after this time (ms since the epoch). */
  readonly since?: number;
  /** Answered before this time (ms since the epoch). */
  readonly until?: number;
  readonly limit: number;
  /** Continue below this id (the previous page's next_cursor). */
  readonly beforeId?: number;
}

interface RequestLogRow {
  id: string | number;
  request_id: string;
  account_id: string | null;
  key_id: string | null;
  method: string;
  route: string;
  model: string | null;
  status: string | number;
  duration_us: string | number;
  charged_units: string | number;
  created_at: string | number;
  provider: string | null;
  error_code: string | null;
  error_message: string | null;
  upstream_status: string | null;
  source: RequestSource;
}

export async function readRequestLog(db: Knex, filter: RequestLogFilter) {
  const query = db<RequestLogRow>('request_log').select('*').orderBy('id', 'desc').limit(filter.limit + 1);
  if (filter.beforeId !== undefined) query.where('id', '<', filter.beforeId);
  if (filter.accountId !== undefined) query.where({ account_id: filter.accountId });
  if (filter.keyId !== undefined) query.where({ key_id: filter.keyId });
  if (filter.model !== undefined) query.where({ model: filter.model });
  if (filter.source !== undefined) query.where({ source: filter.source });
  if (filter.since !== undefined) query.where('created_at', '>=', filter.since);
  if (filter.until !== undefined) query.where('created_at', '<', filter.until);
  if (filter.status !== undefined) {
    if (filter.status === 'error') query.where('status', '>=', 400);
    // A stream that failed after its first byte was answered 200: its error code says it failed.
    else if (filter.status === 'failed') query.where((failed) => failed.where('status', '>=', 400).orWhereNotNull('error_code'));
    else if (filter.status === 'ok') query.where('status', '<', 400).whereNull('error_code');
    else if (filter.status.endsWith('xx')) {
      const from = Number(filter.status[0]) * 100;
      query.where('status', '>=', from).andWhere('status', '<', from + 100);
    } else query.where({ status: Number(filter.status) });
  }
  const rows: RequestLogRow[] = await query;
  const page = rows.slice(0, filter.limit).map((row) => ({
    id: Number(row.id),
    request_id: row.request_id,
    created_at: new Date(Number(row.created_at)).toISOString(),
    method: row.method,
    route: row.route,
    source: row.source,
    status: Number(row.status),
    duration_ms: Number(row.duration_us) / 1000,
    model: row.model,
    account_id: row.account_id,
    key_id: row.key_id,
    provider: row.provider,
    charged_rub: formatRub(unitsFromSql(row.charged_units)),
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message, upstream_status: row.upstream_status },
  }));
  const nextCursor = rows.length > filter.limit ? String(page.at(-1)!.id) : null;
  return { object: 'list' as const, data: page, has_more: nextCursor !== null, next_cursor: nextCursor };
}
