import { GatewayCommand } from '../src/cli/base-command.js';
import { startProcess } from '../src/process/start.js';
import { startWorker } from '../src/process/worker.js';

export default class Worker extends GatewayCommand {
  static override description =
    'Run the job runner alone (no HTTP API): it advances async jobs, delivers webhooks and removes expired files. Run as many as you like against one PostgreSQL database; each job is worked on by one runner at a time.';
  static override examples = ['<%= config.bin %> worker', 'GATEWAY_DATABASE_URL=postgres://gateway@db/gateway <%= config.bin %> worker'];

  async run(): Promise<void> {
    const { flags } = await this.parse(Worker);
    this.jsonOutput = flags.json;
    try {
      await startProcess(this.loadConfiguration(flags.config), { json: flags.json }, async (services) => {
        const worker = await startWorker(services);
        services.logger.info({ runner: worker.owner, concurrency: services.config.jobs.concurrency }, 'job runner started');
        return { json: { runner: worker.owner }, text: `gateway worker ${worker.owner} running (Ctrl-C to stop)`, stop: () => worker.stop() };
      });
    } catch (error) {
      this.fail(error);
    }
  }
}
