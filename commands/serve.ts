import { Flags } from '@oclif/core';
import { GatewayCommand } from '../src/cli/base-command.js';
import { installedWebBundle, notBuiltMessage } from '../src/http/routes/web.js';
import { startServer } from '../src/http/server.js';
import { lockServe } from '../src/process/serve-lock.js';
import { startProcess } from '../src/process/start.js';

export default class Serve extends GatewayCommand {
  static override description =
    'Serve the HTTP API (under /v1) until SIGTERM or SIGINT, then stop gracefully. On SQLite, one serve per database unless cache.url is Redis (which shares the rate limits): a second is refused, naming the first; gateway worker and the other commands run beside it.';
  static override examples = ['<%= config.bin %> serve', '<%= config.bin %> serve --host 0.0.0.0 --port 8080'];
  static override flags = {
    host: Flags.string({ description: 'address to listen on (default: server.host, GATEWAY_HOST)' }),
    port: Flags.integer({ description: 'port to listen on, 0 for any free port (default: server.port, GATEWAY_PORT)', min: 0, max: 65535 }),
    worker: Flags.boolean({ description: 'also run the job runner in this process (--no-worker: API only)', default: true, allowNo: true }),
    bot: Flags.boolean({ description: 'also run the Telegram bot in this process (the `bot` section of the config; docs/bot.md)', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    this.jsonOutput = flags.json;
    try {
      await startProcess(this.loadConfiguration(flags.config), { json: flags.json, processMetrics: true }, async (services) => {
        const { config } = services;
        const lock = await lockServe(services);
        const server = await startServer(services, { host: flags.host ?? config.server.host, port: flags.port ?? config.server.port, jobRunner: flags.worker }).catch(async (error: unknown) => {
          await lock.release();
          throw error;
        });
        // grammY is loaded only with --bot (a dynamic import): a serve without the bot never pays for it.
        const bot = flags.bot
          ? await import('../src/bot/start-bot.js').then(({ startBot }) => startBot(services)).catch(async (error: unknown) => {
              await server.stop().catch(() => undefined);
              await lock.release();
              throw error;
            })
          : undefined;
        const database = config.database.client === 'sqlite' ? `sqlite:${config.database.filename}` : 'postgres';
        services.logger.info({ url: server.url, ...(server.metricsUrl ? { metrics_url: `${server.metricsUrl}/metrics` } : {}), database, job_runner: flags.worker, cache: config.cache.url.startsWith('redis') ? 'redis' : 'memory', models: services.catalog.enabledModels.length }, 'gateway listening');
        if (!installedWebBundle.built) services.logger.warn({ web: installedWebBundle.directory }, notBuiltMessage(installedWebBundle));
        const cabinet = installedWebBundle.built ? `, web cabinet at ${server.url}/cabinet/` : '';
        const metrics = server.metricsUrl ? `, metrics at ${server.metricsUrl}/metrics` : '';
        return {
          json: { url: server.url, ...(server.metricsUrl ? { metrics_url: `${server.metricsUrl}/metrics` } : {}), ...(bot ? { bot: bot.username } : {}) },
          text: `gateway listening on ${server.url} (API under ${server.url}/v1${cabinet}${metrics}${bot ? `, bot @${bot.username}` : ''})`,
          stop: () => (bot?.stop() ?? Promise.resolve()).then(() => server.stop()).finally(() => lock.release()),
        };
      });
    } catch (error) {
      this.fail(error);
    }
  }
}
