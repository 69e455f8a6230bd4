// The one query behind the backlog gauges of /metrics (gateway_jobs, gateway_jobs_oldest_age_seconds,
// gateway_active_holds), run at scrape time, never per request: jobs still to be worked on by
// kind and status (the jobs_runnable index leads with status) and the active holds (the
// partial index holds_active_expiry holds only those), in one round trip.
import type { Knex } from 'knex';
import type { JobKind, JobStatus } from '../model/jobs.js';
import type { Backlog } from './metrics.js';
import { queuedJobStatuses } from './metrics.js';

export async function readBacklog(db: Knex): Promise<Backlog> {
  const statuses = queuedJobStatuses.map(() => '?').join(', ');
  const result = await db.raw(
    `select kind, status, count(*) as n, min(created_at) as oldest from jobs where status in (${statuses}) group by kind, status
     union all
     select 'hold' as kind, 'active' as status, count(*) as n, min(created_at) as oldest from holds where status = 'active'`,
    [...queuedJobStatuses],
  );
  // PostgreSQL answers { rows }, SQLite (better-sqlite3) the rows themselves; counts may come as strings (bigint).
  const rows = (Array.isArray(result) ? result : result.rows) as { kind: string; status: string; n: number | string; oldest: number | string | null }[];
  let activeHolds = 0;
  const jobs: Backlog['jobs'][number][] = [];
  for (const row of rows) {
    if (row.kind === 'hold') activeHolds = Number(row.n);
    else jobs.push({ kind: row.kind as JobKind, status: row.status as JobStatus, count: Number(row.n), oldestCreatedAt: Number(row.oldest) });
  }
  return { jobs, activeHolds };
}
