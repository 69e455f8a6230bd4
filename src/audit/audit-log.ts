// The audit trail: one row per operator change (an account created, disabled or enabled, a
// topup, an adjustment, a refund, a key created, changed or revoked, a job cancelled), written
// by the change's own transaction, so a change is never without its row nor a row without its
// change. The CLI and the admin API make each change through the same service, which writes
// the row with the actor it is given. Read by `gateway audit ls` and GET /admin/v1/audit.
import { userInfo, hostname } from 'node:os';
import type { Knex } from 'knex';
import { auditActions } from './audit-actions.js';

export { auditActions };
export type AuditAction = (typeof auditActions)[number];

export interface AuditEntry {
  readonly actor: string;
  readonly action: AuditAction;
  /** What the change was made to: an account, key or request id. */
  readonly target: string;
  /** The account concerned (`audit ls --account`). */
  readonly accountId: string | null;
  readonly details: Record<string, unknown>;
}

export interface AuditRecord extends AuditEntry {
  readonly id: number;
  readonly at: number;
}

/**
 * Who runs this CLI: `cli:<os user>@<hostname>`. (The admin API writes `admin-token:<id>` or
 * `cabinet:<session id>`.)
 */
export function cliActor(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER ?? String(process.getuid?.() ?? 'unknown');
  }
  return `cli:${user}@${hostname()}`;
}

/** Writes one audit row in the caller's transaction. */
export async function writeAudit(trx: Knex.Transaction, entry: AuditEntry, at: number): Promise<number> {
  const [row] = await trx('audit_log')
    .insert({ at, actor: entry.actor, action: entry.action, target: entry.target, account_id: entry.accountId, details: JSON.stringify(entry.details) })
    .returning(['id']);
  return Number(row.id);
}

interface AuditRow {
  id: string | number;
  at: string | number;
  actor: string;
  action: string;
  target: string;
  account_id: string | null;
  details: string;
}

/**
 * Newest first; `limit + 1` rows at most, so the caller can tell whether more exist.
 * `beforeId`: the page after the one that ended at that id (the admin API's cursor).
 */
export async function readAudit(db: Knex, filter: { accountId?: string; action?: string; limit: number; beforeId?: number }): Promise<AuditRecord[]> {
  const query = db<AuditRow>('audit_log').select('*').orderBy('id', 'desc').limit(filter.limit + 1);
  if (filter.accountId !== undefined) query.where({ account_id: filter.accountId });
  if (filter.action !== undefined) query.where({ action: filter.action });
  if (filter.beforeId !== undefined) query.where('id', '<', filter.beforeId);
  const rows: AuditRow[] = await query;
  return rows.map((row) => ({
    id: Number(row.id),
    at: Number(row.at),
    actor: row.actor,
    action: row.action as AuditAction,
    target: row.target,
    accountId: row.account_id,
    details: JSON.parse(row.details) as Record<string, unknown>,
  }));
}

/** An audit entry as `audit ls --json` and GET /admin/v1/audit show it. */
export function presentAudit(entry: AuditRecord) {
  return {
    id: entry.id,
    at: new Date(entry.at).toISOString(),
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    account_id: entry.accountId,
    details: entry.details,
  };
}
