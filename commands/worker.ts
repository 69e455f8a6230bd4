import { GatewayCommand } from '../src/cli/base-command.js';
import { stopOnSignals } from '../src/cli/stop-on-signals.js';
import { createJobRunner } from '../src/jobs/runner.js';
import { createLogger } from '../src/observability/logger.js';
import { openServerServices } from '../src/services.js';
import { limitHeapGrowth } from '../src/util/heap-growth.js';

export default class Worker extends GatewayCommand {
  static override description =
    'Run the job runner alone (no HTTP API): it advances async jobs, delivers webhooks and removes expired files. Run as many as you like against one PostgreSQL database; each job is worked on by one runner at a time.';
  static override examples = ['<%= config.bin %> worker', 'GATEWAY_DATABASE_URL=postgres://gateway@db/gateway <%= config.bin %> worker'];

  async run(): Promise<void> {
    const { flags } = await this.parse(Worker);
    this.jsonOutput = flags.json;
    let services;
    try {
      const config = this.loadConfiguration(flags.config);
      const logger = createLogger(config.log.level, flags.json ? 'stderr' : 'stdout');
      limitHeapGrowth();
      services = await openServerServices(config, { logger });
      await services.db.migrate.latest();
      const runner = createJobRunner(services);
      runner.start();
      // A live process: it beats and sweeps the request holds of serving processes that died.
      await services.holdOwner.register();
      services.holdOwner.start();
      // Holds of crashed requests are released here too, so a worker-only host recovers them.
      const sweeper = setInterval(() => {
        services!.ledger.releaseExpired().catch((error: unknown) => services!.logger.error({ err: error }, 'hold sweeper failed'));
      }, config.holds.sweepIntervalMs);
      services.logger.info({ runner: runner.owner, concurrency: config.jobs.concurrency }, 'job runner started');
      if (flags.json) process.stdout.write(`${JSON.stringify({ runner: runner.owner, pid: process.pid })}\n`);
      else process.stderr.write(`gateway worker ${runner.owner} running (Ctrl-C to stop)\n`);
      const running = services;
      stopOnSignals(running.logger, async () => {
        clearInterval(sweeper);
        await runner.stop();
        await running.holdOwner.stop({ forget: true });
        await running.close();
      });
    } catch (error) {
      await services?.close().catch(() => undefined);
      this.fail(error);
    }
  }
}
