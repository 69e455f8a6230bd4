// The --since/--until of the commands that read a period (`usage`, `reconcile`).
import { parseReportTime } from '../billing/usage-report.js';
import { GatewayError } from '../errors/gateway-error.js';

/** `2026-11-01` (UTC midnight) or an ISO 8601 time with its zone; ms since the epoch. */
export function parseDate(flag: string, text: string): number {
  const ms = parseReportTime(text); // as GET /admin/v1/usage reads its since/until
  if (ms === undefined) throw new GatewayError('invalid_argument', `--${flag} "${text}" is not a date: use YYYY-MM-DD (UTC) or an ISO 8601 time with its zone, e.g. 2026-11-01T09:00:00Z`);
  return ms;
}

/** [since, until) from the flags; until defaults to now and must come after since. */
export function parsePeriod(flags: { since: string; until?: string }, now: number): { since: number; until: number } {
  const since = parseDate('since', flags.since);
  const until = flags.until === undefined ? now : parseDate('until', flags.until);
  if (until <= since) throw new GatewayError('invalid_argument', `--until must be after --since (${new Date(since).toISOString()})`);
  return { since, until };
}
