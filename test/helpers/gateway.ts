// Starts a real gateway HTTP server on a free loopback port, in this process, over a test
// database, with the shipped example configuration (or a given one).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { type Logger, pino } from 'pino';
import { parse } from 'yaml';
import type { RateLimiter } from '../../src/auth/rate-limiter.js';
import { installRoot, loadConfig } from '../../src/config/load.js';
import { startServer } from '../../src/http/server.js';
import type { RouteDefinition } from '../../src/http/route-table.js';
import { openServerServices, type ServerServices } from '../../src/services.js';
import type { TestDatabase } from './backends.js';

export const exampleConfigPath = path.join(installRoot, 'config', 'gateway.example.yaml');

export interface TestGateway {
  readonly url: string;
  /** Where /metrics is served when metrics.listen moves it off the API port. */
  readonly metricsUrl: string | undefined;
  /** Stops the server (and its job runner) before the test's end. */
  stop(): Promise<void>;
  readonly services: ServerServices;
  /** Creates an account with `balanceRubUnits` and a key; returns both. */
  newClient(options?: { balanceUnits?: bigint; scopes?: string[]; rpm?: number; tpm?: number; maxInFlight?: number }): Promise<{ accountId: string; key: string; keyId: string }>;
}

let clients = 0;

export async function startGateway(
  t: ExecutionContext,
  database: TestDatabase,
  options: {
    env?: Record<string, string>;
    routes?: readonly RouteDefinition[];
    raw?: unknown;
    rateLimiter?: RateLimiter;
    /** Run a job runner in the gateway, as `serve` does. */ jobRunner?: boolean;
    /** Default: silent. A test that asserts on the log passes its own (see capturedLogger). */ logger?: Logger;
    /** The gateway's clock (services.now; default Date.now): a testClock() to move time forward without sleeping. */ now?: () => number;
  } = {},
): Promise<TestGateway> {
  const env: NodeJS.ProcessEnv = {
    GATEWAY_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-data-')),
    GATEWAY_DATABASE_URL: database.url,
    GATEWAY_CACHE_URL: 'memory',
    ...options.env,
  };
  // The shipped example (or the given config), with a small pool: many gateways run at once in tests.
  const raw = (options.raw ?? parse(readFileSync(exampleConfigPath, 'utf8'))) as Record<string, any>;
  const config = loadConfig({ raw: { ...raw, database: { ...raw.database, pool_max: 3 } }, env });
  const services = await openServerServices(config, { logger: options.logger ?? pino({ level: 'silent' }), rateLimiter: options.rateLimiter, now: options.now });
  let server;
  try {
    server = await startServer(services, { host: '127.0.0.1', port: 0, routes: options.routes, jobRunner: options.jobRunner });
  } catch (error) {
    await services.close(); // a server refused to start (its settings): nothing of it stays open
    throw error;
  }
  t.teardown(() => server.stop());
  return {
    url: server.url,
    metricsUrl: server.metricsUrl,
    services,
    stop: () => server.stop(),
    async newClient({ balanceUnits = 0n, scopes, rpm, tpm, maxInFlight } = {}) {
      const account = await services.accounts.create(`client-${process.pid}-${clients++}`);
      if (balanceUnits > 0n) await services.ledger.credit(account.id, balanceUnits, 'topup');
      const { apiKey, key } = await services.apiKeys.create({ accountId: account.id, scopes: scopes as never, rpm, tpm, maxInFlight });
      return { accountId: account.id, key, keyId: apiKey.id };
    },
  };
}

/** A logger at `level` whose lines are kept, parsed, in `lines` (pino's numeric levels: 50 = error). */
export function capturedLogger(level = 'info'): { logger: Logger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}
