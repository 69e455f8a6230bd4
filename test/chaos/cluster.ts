// The real processes of a chaos run: one `gateway simulate` upstream, two `gateway serve`
// (--no-worker) and one `gateway worker` over a fresh database, and a Redis cache (two serves
// on one SQLite file must share their rate limits through it, or the second is refused); on
// PostgreSQL the database and Redis are reached through loopback TCP proxies the faults can cut. The harness's own
// database connection goes straight to the database, so the checks can read it while the
// gateway's path is cut.
//
// Roles: `victim` is the serve process the faults SIGKILL; `steady` is never killed by the
// harness, so its pid must survive every round (the hostile inputs go to it); `worker` runs
// every job (the serve processes run none), so killing it is killing the job runner.
import { Accounts } from '../../src/accounts/accounts.js';
import { ApiKeys } from '../../src/auth/api-keys.js';
import { Ledger } from '../../src/billing/ledger.js';
import type { CabinetLogin } from '../helpers/cabinet.js';
import { processEnv, type RunningProcess, startProcess, writeSharedConfig } from '../helpers/processes.js';
import { cabinetLogins, chaosPaymentsConfig, NotificationSubscriptions, simulatedShop } from './payments.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { type Backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

export type Role = 'victim' | 'steady' | 'worker';

export interface ChaosAccount {
  readonly id: string;
  readonly key: string;
  readonly balanceUnits: bigint;
}

/** A process that died without the harness killing it: input (or a bug) took it down. */
export interface UnexpectedExit {
  readonly role: Role;
  readonly pid: number;
  readonly code: number | null;
  readonly signal: string | null;
  readonly outputTail: string;
}

/** How much each account starts with: three can afford anything, one runs dry (402s, contended holds). */
const balances = [1_000_000_000n, 1_000_000_000n, 1_000_000_000n, 100_000n];

class ManagedProcess {
  current: RunningProcess | undefined;
  private killedByHarness = false;
  private output = '';

  constructor(
    readonly role: Role,
    private readonly args: string[],
    private readonly env: Record<string, string>,
    private readonly onUnexpectedExit: (exit: UnexpectedExit) => void,
    private readonly onKill: (kill: Kill) => void,
  ) {}

  get url(): string {
    return this.current?.url ?? '';
  }

  get pid(): number {
    return this.current?.child.pid ?? 0;
  }

  get alive(): boolean {
    const child = this.current?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** Starts the process, retrying while it cannot start (the database may be cut right now). */
  async start(deadlineMs = 60_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    for (;;) {
      try {
        const started = await startProcess(this.args, this.env);
        this.watch(started);
        return;
      } catch (error) {
        if (Date.now() > until) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500)); // before the next start attempt (the database may be cut for seconds)
      }
    }
  }

  private watch(started: RunningProcess): void {
    this.current = started;
    this.killedByHarness = false;
    this.output = '';
    const keepTail = (chunk: Buffer) => (this.output = (this.output + chunk).slice(-4000));
    started.child.stdout?.on('data', keepTail);
    started.child.stderr?.on('data', keepTail);
    started.child.once('exit', (code, signal) => {
      if (this.killedByHarness || this.current !== started) return;
      this.onUnexpectedExit({ role: this.role, pid: started.child.pid ?? 0, code, signal, outputTail: this.output });
    });
  }

  /** SIGKILL: no cleanup at all, as a power cut or the OOM killer would leave it. */
  async kill(): Promise<void> {
    if (!this.current) return;
    this.killedByHarness = true;
    this.onKill({ role: this.role, pid: this.pid, at: Date.now() });
    await this.current.kill();
  }

  async stop(): Promise<void> {
    if (!this.current) return;
    this.killedByHarness = true;
    if (this.alive) await this.current.stop();
  }
}

/** A SIGKILL the harness sent: when, to which process (the checks relate losses to it). */
export interface Kill {
  readonly role: Role;
  readonly pid: number;
  readonly at: number;
}

export class Cluster {
  readonly unexpectedExits: UnexpectedExit[] = [];
  readonly kills: Kill[] = [];
  readonly accounts: ChaosAccount[] = [];
  /** A logged-in cabinet per account: customers top up through it (payments.ts). */
  logins = new Map<string, CabinetLogin>();
  private readonly processes: Map<Role, ManagedProcess> = new Map();
  private readonly subscriptions: NotificationSubscriptions;

  private constructor(
    readonly backend: Backend,
    readonly database: TestDatabase,
    readonly simulator: RunningProcess,
    readonly databaseProxy: TcpProxy | undefined,
    readonly redisProxy: TcpProxy | undefined,
  ) {
    this.subscriptions = new NotificationSubscriptions(simulator.url);
  }

  /** `env`: more environment for the gateway processes (the soak preloads its heap probe with NODE_OPTIONS). */
  static async start(backend: Backend, options: { redisUrl?: string; env?: Record<string, string> } = {}): Promise<Cluster> {
    const database = await createTestDatabase(backend, { poolMax: 3 });
    const simulator = await startProcess(['simulate', '--host', '127.0.0.1', '--port', '0'], { GATEWAY_LOG_LEVEL: 'warn' });
    let databaseProxy: TcpProxy | undefined;
    let redisProxy: TcpProxy | undefined;
    if (!options.redisUrl) throw new Error(`the ${backend} chaos run needs Redis (GATEWAY_TEST_REDIS_URL): its two serve processes share their rate limits through it`);
    // SQLite: Redis straight (no fault cuts it there).
    const extraEnv: Record<string, string> = { GATEWAY_CACHE_URL: options.redisUrl };
    if (backend === 'postgres') {
      const direct = new URL(database.url);
      databaseProxy = await startTcpProxy(Number(direct.port || 5432), direct.hostname);
      direct.port = String(databaseProxy.port);
      extraEnv.GATEWAY_DATABASE_URL = direct.toString();
      const redis = new URL(options.redisUrl);
      redisProxy = await startTcpProxy(Number(redis.port || 6379), redis.hostname);
      redis.port = String(redisProxy.port);
      extraEnv.GATEWAY_CACHE_URL = redis.toString();
    }
    const cluster = new Cluster(backend, database, simulator, databaseProxy, redisProxy);
    // Short leases, heartbeats and sweeps: a killed process's jobs and holds are taken over in
    // a few seconds, so a round need not wait long for it (the defaults, 60 s leases and 10 s
    // to call a silent process gone, suit production, where restarts are rare).
    const config = writeSharedConfig(simulator.url, {
      database: { pool_max: 4 },
      jobs: { tick: '50ms', lease: '1s', deadline: '10m', concurrency: 16 },
      holds: { sweep_interval: '1s', heartbeat_interval: '1s', owner_gone_after: '4s' },
      // Top-ups through the simulated YooKassa; a payment whose notification was lost is swept after 2 s.
      payments: chaosPaymentsConfig(simulator.url),
    });
    const env = processEnv(config, database, { ...extraEnv, YOOKASSA_SECRET_KEY: simulatedShop.secretKey, ...options.env });
    const record = (exit: UnexpectedExit) => cluster.unexpectedExits.push(exit);
    const killed = (kill: Kill) => cluster.kills.push(kill);
    const serveArgs = ['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'];
    cluster.processes.set('victim', new ManagedProcess('victim', serveArgs, env, record, killed));
    cluster.processes.set('steady', new ManagedProcess('steady', serveArgs, env, record, killed));
    cluster.processes.set('worker', new ManagedProcess('worker', ['worker'], env, record, killed));
    // One at a time: each start runs the migrations (a no-op by then) and they would race.
    for (const managed of cluster.processes.values()) await managed.start();
    await cluster.createAccounts();
    cluster.logins = await cabinetLogins(cluster.process('steady').url, database.db, cluster.accounts.map((account) => account.id));
    await cluster.subscriptions.follow(cluster.serveUrls());
    return cluster;
  }

  private async createAccounts(): Promise<void> {
    const { db } = this.database;
    for (const [index, balanceUnits] of balances.entries()) {
      const account = await new Accounts(db).create(`chaos-${index}`);
      await new Ledger(db).credit(account.id, balanceUnits, 'topup');
      const { key } = await new ApiKeys(db, 'gw').create({ accountId: account.id, rpm: 1_000_000 });
      this.accounts.push({ id: account.id, key, balanceUnits });
    }
  }

  process(role: Role): ManagedProcess {
    return this.processes.get(role)!;
  }

  /** The URLs of the serve processes that are up right now (load goes to these). */
  serveUrls(): string[] {
    return (['victim', 'steady'] as const).map((role) => this.process(role)).filter((managed) => managed.alive).map((managed) => managed.url);
  }

  /** Restarts any process that is down (killed by a fault or dead of its own). */
  async restartDead(): Promise<void> {
    for (const managed of this.processes.values()) if (!managed.alive) await managed.start();
    // The shop's notifications follow the serves to their new addresses.
    await this.subscriptions.follow(this.serveUrls());
  }

  async stop(): Promise<void> {
    this.databaseProxy?.restore();
    this.redisProxy?.restore();
    for (const managed of this.processes.values()) await managed.stop().catch(() => undefined);
    await this.simulator.stop().catch(() => undefined);
    await this.databaseProxy?.close();
    await this.redisProxy?.close();
    await this.database.drop();
  }
}
