// Real processes for the crash and multi-instance tests: a `gateway simulate` upstream shared
// by gateways, `gateway serve` / `gateway worker` processes over one database, and an account
// with a key made directly in that database.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { execa, type ResultPromise } from 'execa';
import { stringify } from 'yaml';
import { Accounts } from '../../src/accounts/accounts.js';
import { ApiKeys } from '../../src/auth/api-keys.js';
import { Ledger } from '../../src/billing/ledger.js';
import { redisUrl, type TestDatabase } from './test-database.js';
import { gatewayBin } from './cli.js';
import { fastJobsConfig } from './job-config.js';

export interface RunningProcess {
  readonly url: string;
  /** The start-up line (url and pid of serve, runner and pid of worker). */
  readonly announced: Record<string, string>;
  readonly child: ResultPromise;
  /** Everything it wrote so far, stdout and stderr (its log lines with --json). */
  output(): string;
  /** SIGKILL: no cleanup at all, as a power cut would leave it. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `gateway <args> --json` and resolves once its first JSON line (with url or runner) appears. */
export async function startProcess(args: string[], env: Record<string, string>): Promise<RunningProcess> {
  const child = execa(gatewayBin, [...args, '--json'], { env, reject: false, extendEnv: true, buffer: false });
  let output = '';
  const line = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      // The line with url (serve), runner (worker) or bot (bot); log lines are JSON too (a process starting
      // while Redis is down says so first), and the last piece may be a line not yet complete.
      for (const candidate of output.split('\n').slice(0, -1)) {
        if (!candidate.startsWith('{')) continue;
        let parsed: Record<string, string>;
        try {
          parsed = JSON.parse(candidate);
        } catch {
          continue; // stderr interleaved into a line: not the one
        }
        if (parsed.url !== undefined || parsed.runner !== undefined || parsed.bot !== undefined) return resolve(parsed);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`gateway ${args[0]} exited early (${code}): ${output.slice(-2000)}`)));
  });
  return {
    url: line.url ?? '',
    announced: line,
    child,
    output: () => output,
    async kill() {
      child.kill('SIGKILL');
      await child;
    },
    async stop() {
      child.kill('SIGTERM');
      await child;
    },
  };
}

/** A `gateway simulate` process, stopped at the test's end. */
export async function startSimulatorProcess(t: ExecutionContext): Promise<RunningProcess> {
  const simulator = await startProcess(['simulate', '--host', '127.0.0.1', '--port', '0'], { GATEWAY_LOG_LEVEL: 'warn' });
  t.teardown(() => simulator.stop());
  return simulator;
}

/** A config file whose `sim` provider is the given simulator process (shared by every gateway process). */
export function writeSharedConfig(simulatorUrl: string, patch: Record<string, unknown> = {}): string {
  const raw = fastJobsConfig(patch);
  raw.providers = { ...raw.providers, sim: { kind: 'sim', base_url: simulatorUrl } };
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gw-shared-')), 'gateway.yaml');
  writeFileSync(file, stringify(raw));
  return file;
}

/** Environment of every process of one test: one database and one data directory (the files are shared, as on one host or a shared volume). */
export function processEnv(configPath: string, database: TestDatabase, extra: Record<string, string> = {}): Record<string, string> {
  return {
    GATEWAY_CONFIG: configPath,
    GATEWAY_DATABASE_URL: database.url,
    GATEWAY_DATA_DIR: path.dirname(configPath),
    GATEWAY_LOG_LEVEL: 'warn',
    ...extra,
  };
}

/**
 * What two `serve` processes running at once on one database need beside processEnv: on SQLite,
 * a Redis sharing their rate limits (without it the second is refused: src/process/serve-lock.ts).
 * Register such a test with testOnBackends(…, { sqliteNeeds: ['redis'] }).
 */
export function twoServesEnv(database: TestDatabase): Record<string, string> {
  if (database.backend !== 'sqlite') return {};
  if (!redisUrl) throw new Error('two serve processes on one SQLite file need Redis (GATEWAY_TEST_REDIS_URL)');
  return { GATEWAY_CACHE_URL: redisUrl };
}

/** An account with `balanceUnits` and an all-scopes key, written straight into the database. */
export async function createClient(database: TestDatabase, balanceUnits: bigint): Promise<{ accountId: string; key: string }> {
  const account = await new Accounts(database.db).create(`proc-${process.pid}-${Date.now()}`);
  await new Ledger(database.db).credit(account.id, balanceUnits, 'topup');
  const { key } = await new ApiKeys(database.db, 'gw').create({ accountId: account.id, rpm: 100_000 });
  return { accountId: account.id, key };
}
