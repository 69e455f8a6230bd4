// Recognizing database errors the code handles on purpose, on both drivers, and telling the
// operator what to do about the ones that mean the database is not there to use.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/load.js';
import { InfrastructureError } from '../util/infrastructure-error.js';

/** A unique index refused the write (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT … UNIQUE). */
export function isUniqueViolation(error: unknown): boolean {
  const candidate = error as { code?: unknown; message?: unknown } | null;
  if (!candidate || typeof candidate !== 'object') return false;
  if (candidate.code === '23505') return true;
  return typeof candidate.message === 'string' && candidate.message.includes('UNIQUE constraint failed');
}

/** The database's URL as shown to people: a PostgreSQL password (in the URL or its query) is masked. */
export function displayDatabaseUrl(database: Config['database']): string {
  if (database.client === 'sqlite') return `sqlite:${database.filename}`;
  try {
    const url = new URL(database.url);
    if (url.password) url.password = '***';
    if (url.searchParams.has('password')) url.searchParams.set('password', '***');
    return url.toString();
  } catch {
    return 'the PostgreSQL URL (unparsable)';
  }
}

const whereConfigured = 'GATEWAY_DATABASE_URL or database.url in the config';

/**
 * The operator's version of a failure to use the database — unreachable, login refused, no
 * such database, not migrated — as one line saying what to check or run; undefined for any other
 * error. `migrate` is the command that migrates this database (with the caller's --config).
 */
export function explainDatabaseFailure(error: unknown, database: Config['database'], migrate = 'gateway migrate'): InfrastructureError | undefined {
  if (error instanceof InfrastructureError) return error;
  const candidate = error as { code?: unknown; message?: unknown; name?: unknown; errors?: unknown } | null;
  if (!candidate || typeof candidate !== 'object') return undefined;
  const message = typeof candidate.message === 'string' ? candidate.message : '';
  // Node reports a name that resolves to several addresses as an AggregateError of one failure each.
  const code = typeof candidate.code === 'string' ? candidate.code : Array.isArray(candidate.errors) ? (candidate.errors[0] as { code?: string } | undefined)?.code : undefined;
  const shown = displayDatabaseUrl(database);
  const fail = (text: string) => new InfrastructureError(text, { cause: error });

  if (database.client === 'sqlite' && code === 'SQLITE_CANTOPEN') {
    // Opened without create (src/db/connect.ts): say which part is missing.
    const filename = database.filename!;
    if (!existsSync(path.dirname(filename))) return missingSqliteDirectory(filename);
    if (!existsSync(filename)) return fail(`there is no database at ${shown}; run: ${migrate} (it creates it)`);
    return fail(`cannot open the database ${shown}: ${message}; check the file's permissions`);
  }
  const missingTable = /no such table: (\S+)/.exec(message) ?? (code === '42P01' ? /relation "([^"]+)" does not exist/.exec(message) : null);
  if (missingTable) return fail(`the database ${shown} is not migrated (it has no table "${missingTable[1]}"); run: ${migrate}`);
  // knex's words when the database records migrations this build has no file for: a newer
  // version migrated it (an upgrade rolled back by putting the old files back).
  const unknownMigrations = /^The migration directory is corrupt, the following files are missing: (.+)$/.exec(message);
  if (unknownMigrations) return new DatabaseNewerError(shown, unknownMigrations[1]!.split(/,\s*/), error);
  if (database.client !== 'postgres') return undefined;

  let address = '';
  try {
    const url = new URL(database.url);
    address = `${url.hostname || 'localhost'}:${url.port || '5432'}`;
  } catch {
    // the URL was validated at load; keep the message without an address
  }
  const unreachable = (what: string, check: string) => fail(`cannot reach PostgreSQL at ${shown}: ${what}; ${check}`);
  switch (code) {
    case 'ECONNREFUSED':
      return unreachable('connection refused', `check that PostgreSQL is running and listening on ${address}, and the URL (${whereConfigured})`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return unreachable(`the host name does not resolve`, `check the host in the URL (${whereConfigured})`);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ECONNRESET':
      return unreachable(`no answer from ${address} (${code})`, `check the host and port in the URL (${whereConfigured}) and that no firewall is in the way`);
    case '28P01':
    case '28000':
      return fail(`PostgreSQL at ${shown} refused the login: ${message}; check the user and password in the URL (${whereConfigured}) and pg_hba.conf`);
    case '3D000':
      return fail(`PostgreSQL at ${shown}: ${message}; create it or fix the database name in the URL (${whereConfigured})`);
    case '57P03':
    case '53300':
      return fail(`PostgreSQL at ${shown} does not accept connections now: ${message}; try again when it has started, or raise max_connections`);
  }
  if (candidate.name === 'KnexTimeoutError') {
    return unreachable(`no connection within the pool's timeout`, `check the host and port in the URL (${whereConfigured}), that no firewall is in the way, and that PostgreSQL has free connections`);
  }
  return undefined;
}

/**
 * The database was migrated by a newer version of the gateway than this one: it records
 * migrations this build does not have. Nothing is changed; the operator runs the newer version,
 * or goes back as docs/deployment.md ("Roll back") says.
 */
export class DatabaseNewerError extends InfrastructureError {
  override readonly catalogCode = 'database_newer_than_gateway';

  constructor(
    shown: string,
    readonly unknownMigrations: readonly string[],
    cause?: unknown,
  ) {
    super(
      `the database ${shown} was migrated by a newer version of the gateway: it has ${unknownMigrations.length === 1 ? 'the migration' : 'the migrations'} ${unknownMigrations.join(', ')}, unknown to this build, which is older than the database. ` +
        `Run the newer version (upgrade this installation to it); or, to go back to this version, either undo those migrations with the newer version still installed (gateway migrate --rollback) or restore the backup taken before the upgrade (see "Roll back" in docs/deployment.md)`,
      { cause },
    );
    this.name = 'DatabaseNewerError';
  }
}

/** A SQLite database whose directory does not exist: never created, since the path is more likely mistyped than new. */
export function missingSqliteDirectory(filename: string): InfrastructureError {
  const directory = path.dirname(filename);
  return new InfrastructureError(
    `the directory ${directory} of the SQLite database sqlite:${filename} does not exist; create it (mkdir -p ${directory}) or point GATEWAY_DATABASE_URL / database.url at an existing one`,
  );
}
