// The `serve` processes running on this database, as they recorded themselves in `instances`
// (src/billing/hold-owners.ts: the row with its heartbeat, and the address once listening):
// live = a heartbeat newer than holds.owner_gone_after, the rule hold owners use. Read by
// `cabinet link` (where to point its link when cabinet.public_url is not set) and by a second
// serve refused on one SQLite file (src/process/serve-lock.ts: who runs, its pid and address).
import type { Knex } from 'knex';
import { defaultPublicUrl } from '../config/load.js';

export interface RunningServe {
  readonly hostname: string;
  readonly pid: number;
  /** The address it listens on, as it recorded it (`http://0.0.0.0:8080` for a wildcard host). */
  readonly url: string;
  readonly startedAt: number;
}

/** The live serve processes (newest first); none when the database predates the `url` column. */
export async function runningServes(db: Knex, options: { readonly now: number; readonly goneAfterMs: number; readonly hostname?: string }): Promise<RunningServe[]> {
  if (!(await db.schema.hasColumn('instances', 'url'))) return [];
  const query = db('instances')
    .whereNotNull('url')
    .andWhere('heartbeat_at', '>=', options.now - options.goneAfterMs)
    .select('hostname', 'pid', 'url', 'started_at')
    .orderBy('started_at', 'desc');
  if (options.hostname !== undefined) query.andWhere('hostname', options.hostname);
  const rows: { hostname: string; pid: number | string; url: string; started_at: number | string }[] = await query;
  return rows.map((row) => ({ hostname: row.hostname, pid: Number(row.pid), url: row.url, startedAt: Number(row.started_at) }));
}

/** The address a browser on this machine opens for a serve's recorded one: a wildcard host (0.0.0.0, ::) becomes loopback. */
export function reachableUrl(recorded: string): string {
  const parsed = new URL(recorded);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return defaultPublicUrl(host, Number(parsed.port || 80));
}
