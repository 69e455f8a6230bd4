// What the operator sees of the gateway as a whole (GET /admin/v1/system): the version, the
// database kind and whether it answers, whether Redis answers (when configured), and the job
// queue: jobs waiting or running, by kind and status (shared by every instance: read from the
// database). The instance that answered is named; Redis is as this instance sees it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { installRoot } from '../config/load.js';
import { isPostgres } from '../db/dialect.js';
import { activeStatuses } from '../jobs/job.js';
import type { ServerServices } from '../services.js';

/** package.json's version, read once. */
let version: string | undefined;
export function gatewayVersion(): string {
  version ??= (JSON.parse(readFileSync(path.join(installRoot, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}

export async function systemStatus(services: ServerServices) {
  const { db, redis } = services;
  let databaseUp = true;
  let queue: { kind: string; status: 'queued' | 'in_progress'; count: number }[] = [];
  try {
    const rows = (await db('jobs')
      .select('kind', 'status')
      .count({ n: '*' })
      .whereIn('status', activeStatuses)
      .groupBy('kind', 'status')
      .orderBy('kind')
      .orderBy('status')) as unknown as { kind: string; status: string; n: string | number }[];
    queue = rows.map((row) => ({ kind: row.kind, status: row.status as 'queued' | 'in_progress', count: Number(row.n) }));
  } catch {
    databaseUp = false;
  }
  let redisState: 'up' | 'down' | 'not_configured' = 'not_configured';
  if (redis) {
    redisState = await redis.ping().then(
      () => 'up' as const,
      () => 'down' as const,
    );
  }
  return {
    version: gatewayVersion(),
    node_version: process.version,
    instance: services.config.instance.hostname,
    database: { kind: isPostgres(db) ? ('postgres' as const) : ('sqlite' as const), up: databaseUp },
    redis: redisState,
    jobs: { queue },
  };
}
