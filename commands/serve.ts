import { Flags } from '@oclif/core';
import { checkCatalog } from '../src/catalog/check.js';
import { GatewayCommand } from '../src/cli/base-command.js';
import { stopOnSignals } from '../src/cli/stop-on-signals.js';
import { ConfigError } from '../src/config/load.js';
import { createLogger } from '../src/observability/logger.js';
import { startServer } from '../src/http/server.js';
import { openServerServices } from '../src/services.js';
import { limitHeapGrowth } from '../src/util/heap-growth.js';

export default class Serve extends GatewayCommand {
  static override description = 'Serve the HTTP API (under /v1) until SIGTERM or SIGINT, then stop gracefully';
  static override examples = ['<%= config.bin %> serve', '<%= config.bin %> serve --host 0.0.0.0 --port 8080'];
  static override flags = {
    host: Flags.string({ description: 'address to listen on (default: server.host, GATEWAY_HOST)' }),
    port: Flags.integer({ description: 'port to listen on, 0 for any free port (default: server.port, GATEWAY_PORT)', min: 0, max: 65535 }),
    worker: Flags.boolean({ description: 'also run the job runner in this process (--no-worker: API only)', default: true, allowNo: true }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    this.jsonOutput = flags.json;
    let services;
    try {
      const config = this.loadConfiguration(flags.config);
      // A catalog with a missing or absurd price must not serve: it would charge nothing or refuse everyone.
      const problems = checkCatalog(config);
      const errors = problems.filter((p) => p.severity === 'error');
      if (errors.length > 0) {
        throw new ConfigError(`the model catalog (run: gateway models check)`, errors.map((p) => `${p.model} ${p.field}: ${p.message}`));
      }
      // With --json, stdout carries only the {url, pid} line; the request log goes to stderr.
      const logger = createLogger(config.log.level, flags.json ? 'stderr' : 'stdout');
      limitHeapGrowth();
      services = await openServerServices(config, { processMetrics: true, logger });
      await services.db.migrate.latest();
      const server = await startServer(services, { host: flags.host ?? config.server.host, port: flags.port ?? config.server.port, jobRunner: flags.worker });
      const database = config.database.client === 'sqlite' ? `sqlite:${config.database.filename}` : 'postgres';
      services.logger.info({ url: server.url, database, jobRunner: flags.worker, cache: config.cache.url.startsWith('redis') ? 'redis' : 'memory', models: services.catalog.enabledModels.length }, 'gateway listening');
      if (flags.json) process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
      else process.stderr.write(`gateway listening on ${server.url} (API under ${server.url}/v1)\n`);
      stopOnSignals(services.logger, () => server.stop());
    } catch (error) {
      await services?.close().catch(() => undefined);
      this.fail(error);
    }
  }
}
