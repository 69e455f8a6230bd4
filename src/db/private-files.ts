// The database, its WAL and shared memory, the backups and the data directory hold every
// account's balance, key hashes and webhook secrets: they are the operator's alone (issue 30).
// - Files the gateway creates are made 0600 from the start, never chmod-ed after being written
//   (a chmod after leaves a moment when another user could open them). SQLite creates the WAL
//   and shared-memory files itself, with the mode of their database file: so the database file
//   is created empty, 0600, before SQLite opens it (an empty file is a valid new database),
//   and `VACUUM INTO` writes a backup into an empty 0600 file made the same way.
// - Not the process umask: it is process-wide (the blob store's files, logs, anything a
//   library writes) and a umask of 0o077 around one open would be a race with the others.
// - An existing install (files made 0644 by an older gateway, a directory made 0755 by an
//   image or by hand) is tightened when a process that owns the data starts (serve, worker,
//   migrate), and that says so once in the log; a file that is not ours to chmod (EPERM) is
//   left as it is, with a warning.
import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import type { Logger } from '../observability/logger.js';

/** The mode of the data directory: only its owner may list or enter it. */
export const privateDirectoryMode = 0o700;
/** The mode of the database, its WAL and shared memory, and backups. */
export const privateFileMode = 0o600;

/** Creates `filename` empty with mode 0600 unless it exists (SQLite then opens it as a new database). */
export function createPrivateFile(filename: string): void {
  try {
    closeSync(openSync(filename, 'wx', privateFileMode));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** A path whose mode was looser than it should be, and what it is now. */
export interface TightenedPath {
  readonly path: string;
  readonly was: string;
  readonly now: string;
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/**
 * Takes group and other permissions away from the data directory and the SQLite files that
 * exist (`sqliteFilename` with its -wal and -shm), and logs once what it changed. Returns the
 * paths it tightened.
 */
export function tightenDataPermissions(paths: { readonly dataDir: string; readonly sqliteFilename?: string }, logger: Logger): TightenedPath[] {
  const targets: [string, number][] = [[paths.dataDir, privateDirectoryMode]];
  if (paths.sqliteFilename !== undefined) {
    for (const suffix of ['', '-wal', '-shm']) targets.push([`${paths.sqliteFilename}${suffix}`, privateFileMode]);
  }
  const tightened: TightenedPath[] = [];
  for (const [target, mode] of targets) {
    if (!existsSync(target)) continue;
    const current = statSync(target).mode & 0o777;
    if ((current & 0o077) === 0) continue;
    try {
      chmodSync(target, mode);
      tightened.push({ path: target, was: octal(current), now: octal(mode) });
    } catch (error) {
      logger.warn({ path: target, mode: octal(current), err: error }, `${target} is readable by other users and could not be made ${octal(mode)}: change its owner or mode`);
    }
  }
  if (tightened.length > 0) {
    logger.warn({ tightened }, `the gateway's data was readable by other users; now only its owner can read it: ${tightened.map((t) => `${t.path} ${t.was} -> ${t.now}`).join(', ')}`);
  }
  return tightened;
}
