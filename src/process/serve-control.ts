// How `gateway reload` reaches a running `serve --workers N`: the primary writes two small files
// in the data directory (0600, replaced atomically by rename):
// - serve.json: its pid, address and number of workers, while it runs (removed at a graceful stop);
// - serve-reload.json: the outcome of the last reload (its sequence number, ok or the reason it
//   was refused), so the command that sent SIGHUP can wait for its own reload and report it.
// A signal and a file need no open port, no token and no database: whoever may signal the
// process (its user, root) may reload it, as with SIGHUP itself.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { privateFileMode } from '../db/private-files.js';

export interface ServeRecord {
  readonly pid: number;
  readonly url: string;
  readonly workers: number;
  readonly started_at: string;
}

export interface ReloadOutcome {
  /** 1 for the first reload of this primary, +1 for each. */
  readonly seq: number;
  /** The primary this outcome is of. */
  readonly pid: number;
  readonly ok: boolean;
  /** Why the reload was refused (the old workers keep serving). */
  readonly error?: string;
  /** The pids serving after it. */
  readonly workers: readonly number[];
  readonly finished_at: string;
}

export const serveRecordFile = (dataDir: string) => path.join(dataDir, 'serve.json');
export const reloadOutcomeFile = (dataDir: string) => path.join(dataDir, 'serve-reload.json');

export function writeControlFile(file: string, value: ServeRecord | ReloadOutcome): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value)}\n`, { mode: privateFileMode });
  renameSync(temporary, file);
}

export function readControlFile<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export function removeControlFile(file: string): void {
  rmSync(file, { force: true });
}
