// Login links and sessions that ended are removed, so the two tables hold what can still be
// used (and a day of history) rather than every login ever made. Run with the hold sweep of
// every `serve` and `worker` (http/server.ts, process/worker.ts), on the process's clock.
// What happened stays in the audit log (login_link.create, session revocations).
import type { Knex } from 'knex';

/**
 * An ended session is kept this long after its absolute end or its revocation: a cookie
 * presented meanwhile is still told `session_expired` (not `session_required`), and
 * `cabinet sessions ls --all` shows the last day's ended sessions.
 */
export const endedSessionKeptMs = 24 * 60 * 60_000;

/**
 * Deletes login links that were used or are past their expiry (either way they open nothing,
 * and a redemption of a deleted one gets the same one answer), and sessions that ended — by
 * their absolute end or by revocation — more than a day ago. Idle sessions go at their absolute end.
 */
export async function removeEndedCabinetRecords(db: Knex, now: number): Promise<{ loginLinks: number; sessions: number }> {
  const loginLinks = await db('login_links').whereNotNull('used_at').orWhere('expires_at', '<=', now).delete();
  const before = now - endedSessionKeptMs;
  const sessions = await db('cabinet_sessions').where('expires_at', '<=', before).orWhere('revoked_at', '<=', before).delete();
  return { loginLinks, sessions };
}
