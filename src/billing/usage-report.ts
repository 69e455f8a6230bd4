// `gateway usage` (issue 18): requests, tokens and money over a period, grouped by model, key,
// account or UTC day. Money is the ledger's: every charge (kind `charge`) whose row landed in the
// period, so the report's RUB per account equal the ledger's charges exactly (integer units
// summed by the database, printed as decimal strings). Tokens and media units come from the
// usage record each charge was written with (the same statement, the same request id: request
// ids are the gateway's own, one per request): tokens of chat, embeddings and decisions; images,
// characters of speech, seconds of audio (transcriptions, music) and of video (jobs). A charge
// that is not a chat one is counted in `media_requests`, as is one without a usage record (media
// charged before migration 20261126110000: no units known). Usage records of requests that
// charged nothing (free models, failures) add their requests and tokens by their own time.
import type { Knex } from 'knex';
import { isPostgres } from '../db/dialect.js';
import { formatRub } from '../util/money.js';
import { drainUsageOutbox } from './usage-outbox.js';

export const usageGroupings = ['model', 'key', 'account', 'day'] as const;
export type UsageGrouping = (typeof usageGroupings)[number];

export interface UsageRow {
  /** The group: model id, key id (null when a media charge's key is not known), account id, or `YYYY-MM-DD` (UTC). */
  readonly group: string | null;
  readonly requests: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
  readonly mediaRequests: number;
  readonly images: number;
  readonly characters: number;
  readonly audioSeconds: number;
  readonly videoSeconds: number;
  readonly chargedUnits: bigint;
}

const dayMs = 86_400_000;

interface Sums {
  g: string | number | null;
  requests: string | number;
  input_tokens: string | number | null;
  cached_input_tokens: string | number | null;
  output_tokens: string | number | null;
  reasoning_tokens: string | number | null;
  media_requests: string | number | null;
  images: string | number | null;
  characters: string | number | null;
  audio_seconds: string | number | null;
  video_seconds: string | number | null;
  charged_units: string | number | null;
}

/** The report's rows, ordered by group; `since` inclusive, `until` exclusive (ms). */
export async function usageReport(
  db: Knex,
  options: { since: number; until: number; by: UsageGrouping; accountId?: string },
): Promise<UsageRow[]> {
  await drainUsageOutbox(db); // every charge's usage record, those SQLite settles left in the outbox too
  const { since, until, by, accountId } = options;
  // What a charge is grouped by. A charge's key: its usage record's (chat), its job's, or the request log's (media).
  const chargeGroup = { model: 'l.model', key: 'COALESCE(u.key_id, j.key_id, l.log_key_id)', account: 'l.account_id', day: `l.created_at / ${dayMs}` }[by];
  const freeGroup = { model: 'u.model', key: 'u.key_id', account: 'u.account_id', day: `u.created_at / ${dayMs}` }[by];
  const accountFilter = accountId === undefined ? '' : 'AND l.account_id = :accountId';
  const freeAccountFilter = accountId === undefined ? '' : 'AND u.account_id = :accountId';
  // Looked up only when grouping by key (the request log has a row per request; any one will do).
  const logKey = by === 'key' ? '(SELECT r.key_id FROM request_log r WHERE r.request_id = l.request_id AND r.key_id IS NOT NULL LIMIT 1)' : 'NULL';
  const jobJoin = by === 'key' ? 'LEFT JOIN jobs j ON j.hold_id = l.hold_id' : 'LEFT JOIN (SELECT NULL AS key_id) j ON 1 = 0';
  const bindings = { since, until, ...(accountId === undefined ? {} : { accountId }) };
  const charged = await db.raw(
    `SELECT ${chargeGroup} AS g, COUNT(*) AS requests,
       SUM(COALESCE(u.input_tokens, 0)) AS input_tokens, SUM(COALESCE(u.cached_input_tokens, 0)) AS cached_input_tokens,
       SUM(COALESCE(u.output_tokens, 0)) AS output_tokens, SUM(COALESCE(u.reasoning_tokens, 0)) AS reasoning_tokens,
       SUM(CASE WHEN u.id IS NULL OR u.endpoint NOT IN ('chat-completions', 'messages', 'responses', 'generate-content') THEN 1 ELSE 0 END) AS media_requests,
       SUM(COALESCE(u.images, 0)) AS images, SUM(COALESCE(u.characters, 0)) AS characters,
       SUM(COALESCE(u.audio_seconds, 0)) AS audio_seconds, SUM(COALESCE(u.video_seconds, 0)) AS video_seconds, SUM(-l.amount_units) AS charged_units
     FROM (SELECT l.*, ${logKey} AS log_key_id FROM ledger_transactions l
           WHERE l.kind = 'charge' AND l.created_at >= :since AND l.created_at < :until ${accountFilter}) l
     LEFT JOIN usage_records u ON u.request_id = l.request_id AND u.account_id = l.account_id AND u.cost_units > 0
     ${jobJoin}
     GROUP BY ${chargeGroup}`,
    bindings,
  );
  const free = await db.raw(
    `SELECT ${freeGroup} AS g, COUNT(*) AS requests,
       SUM(u.input_tokens) AS input_tokens, SUM(u.cached_input_tokens) AS cached_input_tokens,
       SUM(u.output_tokens) AS output_tokens, SUM(u.reasoning_tokens) AS reasoning_tokens,
       0 AS media_requests, 0 AS images, 0 AS characters, 0 AS audio_seconds, 0 AS video_seconds, 0 AS charged_units
     FROM usage_records u WHERE u.cost_units = 0 AND u.created_at >= :since AND u.created_at < :until ${freeAccountFilter}
     GROUP BY ${freeGroup}`,
    bindings,
  );
  const rowsOf = (result: unknown): Sums[] => (isPostgres(db) ? (result as { rows: Sums[] }).rows : (result as Sums[]));
  const merged = new Map<string, UsageRow>();
  for (const sums of [...rowsOf(charged), ...rowsOf(free)]) {
    const group = sums.g === null ? null : by === 'day' ? new Date(Number(sums.g) * dayMs).toISOString().slice(0, 10) : String(sums.g);
    const before = merged.get(String(group));
    const n = (value: string | number | null) => Number(value ?? 0);
    merged.set(String(group), {
      group,
      requests: (before?.requests ?? 0) + n(sums.requests),
      inputTokens: (before?.inputTokens ?? 0) + n(sums.input_tokens),
      cachedInputTokens: (before?.cachedInputTokens ?? 0) + n(sums.cached_input_tokens),
      outputTokens: (before?.outputTokens ?? 0) + n(sums.output_tokens),
      reasoningTokens: (before?.reasoningTokens ?? 0) + n(sums.reasoning_tokens),
      mediaRequests: (before?.mediaRequests ?? 0) + n(sums.media_requests),
      images: (before?.images ?? 0) + n(sums.images),
      characters: (before?.characters ?? 0) + n(sums.characters),
      audioSeconds: (before?.audioSeconds ?? 0) + n(sums.audio_seconds),
      videoSeconds: (before?.videoSeconds ?? 0) + n(sums.video_seconds),
      chargedUnits: (before?.chargedUnits ?? 0n) + BigInt(sums.charged_units ?? 0),
    });
  }
  return [...merged.values()].sort((a, b) => (a.group ?? '').localeCompare(b.group ?? ''));
}

/**
 * A report time as `gateway usage --since/--until` and GET /admin/v1/usage take it:
 * `2026-11-01` (UTC midnight) or an ISO 8601 time with its zone; ms since the epoch, or
 * undefined when it is neither (each surface names its own flag or field).
 */
export function parseReportTime(text: string): number | undefined {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const withTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text);
  const ms = dateOnly ? Date.parse(`${text}T00:00:00Z`) : withTime ? Date.parse(text) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The whole report as `gateway usage --json` prints it and GET /admin/v1/usage answers it:
 * the list envelope of rows, the period, the account filter and the totals.
 */
export async function usageSummary(db: Knex, options: { since: number; until: number; by: UsageGrouping; accountId?: string }) {
  const report = await usageReport(db, options);
  const totals = {
    requests: report.reduce((sum, row) => sum + row.requests, 0),
    input_tokens: report.reduce((sum, row) => sum + row.inputTokens, 0),
    cached_input_tokens: report.reduce((sum, row) => sum + row.cachedInputTokens, 0),
    output_tokens: report.reduce((sum, row) => sum + row.outputTokens, 0),
    reasoning_tokens: report.reduce((sum, row) => sum + row.reasoningTokens, 0),
    media_requests: report.reduce((sum, row) => sum + row.mediaRequests, 0),
    images: report.reduce((sum, row) => sum + row.images, 0),
    characters: report.reduce((sum, row) => sum + row.characters, 0),
    audio_seconds: report.reduce((sum, row) => sum + row.audioSeconds, 0),
    video_seconds: report.reduce((sum, row) => sum + row.videoSeconds, 0),
    charged_rub: formatRub(report.reduce((sum, row) => sum + row.chargedUnits, 0n)),
  };
  return {
    object: 'list' as const,
    data: presentUsage(report, options.by),
    has_more: false,
    by: options.by,
    since: new Date(options.since).toISOString(),
    until: new Date(options.until).toISOString(),
    account_id: options.accountId ?? null,
    totals,
  };
}

/** The columns of the report's table and CSV, grouped `by`. */
export const usageColumns = (by: UsageGrouping) => [by, 'requests', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_tokens', 'media_requests', 'images', 'characters', 'audio_seconds', 'video_seconds', 'charged_rub'];

/** The rows as the CLI prints them (JSON and CSV): RUB as 4-decimal strings. */
export function presentUsage(rows: readonly UsageRow[], by: UsageGrouping) {
  return rows.map((row) => ({
    [by]: row.group,
    requests: row.requests,
    input_tokens: row.inputTokens,
    cached_input_tokens: row.cachedInputTokens,
    output_tokens: row.outputTokens,
    reasoning_tokens: row.reasoningTokens,
    media_requests: row.mediaRequests,
    images: row.images,
    characters: row.characters,
    audio_seconds: row.audioSeconds,
    video_seconds: row.videoSeconds,
    charged_rub: formatRub(row.chargedUnits),
  }));
}

/** RFC 4180: CRLF line ends, a header row, fields with a comma, quote or line break quoted (quotes doubled). */
export function toCsv(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
  return [csvLine(columns), ...rows.map((row) => csvLine(columns.map((column) => row[column])))].join('');
}

/** One RFC 4180 line with its CRLF (null and undefined as empty fields): for CSV written row by row (the cabinet's history export). */
export function csvLine(values: readonly unknown[]): string {
  const field = (value: unknown) => {
    const text = value === null || value === undefined ? '' : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return `${values.map(field).join(',')}\r\n`;
}
