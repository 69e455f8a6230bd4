// The --since/--until of the commands that read a period (`usage`, `reconcile`).
import { GatewayError } from '../errors/gateway-error.js';

/** `2026-11-01` (UTC midnight) or an ISO 8601 time with its zone; ms since the epoch. */
export function parseDate(flag: string, text: string): number {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const withTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text);
  const ms = dateOnly ? Date.parse(`${text}T00:00:00Z`) : withTime ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new GatewayError('invalid_argument', `--${flag} "${text}" is not a date: use YYYY-MM-DD (UTC) or an ISO 8601 time with its zone, e.g. 2026-11-01T09:00:00Z`);
  return ms;
}

/** [since, until) from the flags; until defaults to now and must come after since. */
export function parsePeriod(flags: { since: string; until?: string }, now: number): { since: number; until: number } {
  const since = parseDate('since', flags.since);
  const until = flags.until === undefined ? now : parseDate('until', flags.until);
  if (until <= since) throw new GatewayError('invalid_argument', `--until must be after --since (${new Date(since).toISOString()})`);
  return { since, until };
}
