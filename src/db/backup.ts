// Backups and restores of a SQLite database (issue 18), and the ledger check a restore ends with.
// - Backup: `VACUUM INTO` a temporary file beside the target, then a rename: one read
//   transaction, so the copy is the database as of one moment while `serve` keeps writing (WAL:
//   the reader blocks no writer), compacted, and never half-written under the target's name.
//   Made 0600, as the database is (src/db/private-files.ts).
// - Restore: the backup is copied beside the database, checked there (PRAGMA integrity_check and
//   the ledger invariants) and only then renamed into place, the old file kept beside it and its
//   WAL and shared-memory files removed (they belong to the old file: SQLite would replay them
//   into the new one). Refused while a `serve`/`worker` process is live on the database (its
//   heartbeat in `instances` is newer than holds.owner_gone_after), unless forced.
// PostgreSQL is backed up with pg_dump (docs/operations.md).
import { chmodSync, copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { DomainError } from '../errors/domain-error.js';
import { createPrivateFile, privateFileMode } from './private-files.js';

export class BackupTargetExistsError extends DomainError {
  override readonly catalogCode = 'backup_target_exists';
  override readonly seenIn = 'cli';

  constructor(readonly target: string) {
    super(`${target} exists; pass --force to replace it`);
    this.name = 'BackupTargetExistsError';
  }
}

/** The folder of --to is not there: a backup never creates folders (a typo would scatter copies). */
export class BackupTargetFolderMissingError extends DomainError {
  override readonly catalogCode = 'invalid_argument';
  override readonly seenIn = 'cli';

  constructor(readonly folder: string) {
    super(`the folder ${folder} does not exist; create it, or choose another --to`);
    this.name = 'BackupTargetFolderMissingError';
  }
}

export class BackupNotSupportedError extends DomainError {
  override readonly catalogCode = 'backup_not_supported';
  override readonly seenIn = 'cli';

  constructor(command: 'backup' | 'restore') {
    super(
      command === 'backup'
        ? 'gateway backup copies SQLite databases; this gateway uses PostgreSQL: back it up with pg_dump, e.g. pg_dump --format=custom --file=gateway.dump "$GATEWAY_DATABASE_URL" (docs/operations.md, Backups)'
        : 'gateway restore restores SQLite databases; this gateway uses PostgreSQL: restore a pg_dump with pg_restore, e.g. pg_restore --clean --if-exists --dbname="$GATEWAY_DATABASE_URL" gateway.dump (docs/operations.md, Backups)',
    );
    this.name = 'BackupNotSupportedError';
  }
}

export class DatabaseInUseError extends DomainError {
  override readonly catalogCode = 'database_in_use';
  override readonly seenIn = 'cli';

  constructor(
    readonly filename: string,
    readonly instances: readonly { id: string; hostname: string; pid: number }[],
  ) {
    super(
      `${filename} is in use by ${instances.map((i) => `${i.id} (pid ${i.pid} on ${i.hostname})`).join(', ')}: stop every serve and worker first ` +
        '(or pass --force if they are gone: their heartbeats are recent)',
    );
    this.name = 'DatabaseInUseError';
  }
}

export class BackupSourceMissingError extends DomainError {
  override readonly catalogCode = 'not_found';
  override readonly seenIn = 'cli';

  constructor(readonly source: string) {
    super(`${source} does not exist`);
    this.name = 'BackupSourceMissingError';
  }
}

export interface BackupResult {
  readonly to: string;
  readonly bytes: number;
  readonly durationMs: number;
}

/**
 * Copies the live database `db` to `target` with VACUUM INTO. `onProgress`: told the bytes
 * written so far every ~500 ms while it runs.
 */
export async function backupSqlite(db: Knex, target: string, options: { force: boolean; onProgress?: (bytes: number) => void; now?: () => number }): Promise<BackupResult> {
  const now = options.now ?? Date.now;
  const to = path.resolve(target);
  if (existsSync(to) && !options.force) throw new BackupTargetExistsError(to);
  if (!existsSync(path.dirname(to))) throw new BackupTargetFolderMissingError(path.dirname(to));
  const partial = `${to}.partial-${process.pid}`;
  rmSync(partial, { force: true });
  // VACUUM INTO writes into an empty file: made 0600 first, the copy is never readable by others (src/db/private-files.ts).
  createPrivateFile(partial);
  const started = now();
  const progress = options.onProgress
    ? setInterval(() => {
        if (existsSync(partial)) options.onProgress!(statSync(partial).size);
      }, 500)
    : undefined;
  try {
    await db.raw('VACUUM INTO ?', [partial]);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    if (progress) clearInterval(progress);
  }
  renameSync(partial, to);
  return { to, bytes: statSync(to).size, durationMs: now() - started };
}

export interface LedgerCheck {
  readonly integrity: string;
  readonly accounts: number;
  readonly problems: readonly string[];
}

/** balance == sum(ledger), held == sum(active holds), 0 <= held <= balance, newest balance_after == balance: for every account. */
export async function checkLedger(db: Knex): Promise<{ accounts: number; problems: string[] }> {
  const rows: { id: string; balance_units: string | number; held_units: string | number; ledger_sum: string | number | null; last_after: string | number | null }[] =
    await db('accounts as a')
      .select(
        'a.id',
        'a.balance_units',
        'a.held_units',
        db.raw('(SELECT SUM(l.amount_units) FROM ledger_transactions l WHERE l.account_id = a.id) AS ledger_sum'),
        db.raw('(SELECT l.balance_after_units FROM ledger_transactions l WHERE l.account_id = a.id ORDER BY l.id DESC LIMIT 1) AS last_after'),
      )
      .orderBy('a.id');
  // The active holds, all of them at once: they are the few in flight, read through the partial
  // index of active holds (holds_active_expiry), where a subquery per account would scan the table.
  const activeRows: { account_id: string; held: string | number }[] = await db('holds').where({ status: 'active' }).groupBy('account_id').select('account_id', db.raw('SUM(amount_units) AS held'));
  const activeHeldOf = new Map(activeRows.map((row) => [row.account_id, BigInt(row.held)]));
  const problems: string[] = [];
  for (const row of rows) {
    const balance = BigInt(row.balance_units);
    const held = BigInt(row.held_units);
    const ledgerSum = BigInt(row.ledger_sum ?? 0);
    const activeHeld = activeHeldOf.get(row.id) ?? 0n;
    if (balance !== ledgerSum) problems.push(`${row.id}: balance ${balance} units != sum of its ledger ${ledgerSum}`);
    if (held !== activeHeld) problems.push(`${row.id}: held ${held} units != its active holds ${activeHeld}`);
    if (held < 0n || held > balance) problems.push(`${row.id}: held ${held} units outside 0..balance ${balance}`);
    if (row.last_after !== null && BigInt(row.last_after) !== balance) problems.push(`${row.id}: newest balance_after ${row.last_after} != balance ${balance}`);
  }
  return { accounts: rows.length, problems };
}

/** Opens a SQLite file on its own (not the gateway's pool), for checks. */
function openFile(filename: string): Knex {
  return knexFactory({ client: 'sqlite3', connection: { filename }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
}

/** PRAGMA integrity_check and the ledger invariants of the SQLite file `filename`. */
export async function checkSqliteFile(filename: string): Promise<LedgerCheck> {
  const db = openFile(filename);
  try {
    const integrityRows: { integrity_check: string }[] = await db.raw('PRAGMA integrity_check');
    const integrity = integrityRows.map((row) => row.integrity_check).join('; ');
    if (integrity !== 'ok') return { integrity, accounts: 0, problems: [`integrity_check: ${integrity}`] };
    const { accounts, problems } = await checkLedger(db);
    return { integrity, accounts, problems };
  } finally {
    await db.destroy();
  }
}

export interface RestoreResult extends LedgerCheck {
  readonly from: string;
  readonly to: string;
  /** Where the database that was replaced was kept (null: there was none). */
  readonly previous: string | null;
  readonly restored: boolean;
}

/**
 * Restores the SQLite backup `from` as the database `filename` (see the header). Not restored
 * (restored: false, the database untouched) when the backup fails its checks.
 */
export async function restoreSqlite(
  from: string,
  filename: string,
  options: { force: boolean; ownerGoneAfterMs: number; now?: () => number },
): Promise<RestoreResult> {
  const now = options.now ?? Date.now;
  const source = path.resolve(from);
  const to = path.resolve(filename);
  if (!existsSync(source)) throw new BackupSourceMissingError(source);
  if (existsSync(to) && !options.force) {
    const live = await liveInstances(to, now() - options.ownerGoneAfterMs);
    if (live.length > 0) throw new DatabaseInUseError(to, live);
  }
  const incoming = `${to}.restoring-${process.pid}`;
  copyFileSync(source, incoming);
  // The restored database is private whatever the backup's mode was (src/db/private-files.ts).
  chmodSync(incoming, privateFileMode);
  const check = await checkSqliteFile(incoming).catch((error: Error) => ({ integrity: error.message, accounts: 0, problems: [`not a usable SQLite database: ${error.message}`] }));
  if (check.problems.length > 0) {
    rmSync(incoming, { force: true });
    return { ...check, from: source, to, previous: null, restored: false };
  }
  let previous: string | null = null;
  if (existsSync(to)) {
    previous = `${to}.replaced-${new Date(now()).toISOString().replace(/[:.]/g, '-')}`;
    renameSync(to, previous);
  }
  // The old file's WAL and shared memory would be replayed into the new one.
  rmSync(`${to}-wal`, { force: true });
  rmSync(`${to}-shm`, { force: true });
  renameSync(incoming, to);
  return { ...check, from: source, to, previous, restored: true };
}

async function liveInstances(filename: string, cutoff: number): Promise<{ id: string; hostname: string; pid: number }[]> {
  const db = openFile(filename);
  try {
    if (!(await db.schema.hasTable('instances'))) return [];
    const rows: { id: string; hostname: string; pid: number | string }[] = await db('instances').select('id', 'hostname', 'pid').where('heartbeat_at', '>=', cutoff).orderBy('id');
    return rows.map((row) => ({ id: row.id, hostname: row.hostname, pid: Number(row.pid) }));
  } finally {
    await db.destroy();
  }
}
