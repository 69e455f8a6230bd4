import cluster from 'node:cluster';
import { Flags } from '@oclif/core';
import { GatewayCommand } from '../src/cli/base-command.js';
import { installedWebBundle, notBuiltMessage } from '../src/http/routes/web.js';
import { startServer } from '../src/http/server.js';
import { lockServe } from '../src/process/serve-lock.js';
import { startProcess } from '../src/process/start.js';
import { runPrimary } from '../src/process/cluster-primary.js';
import { joinCluster, nameWorkerInResponses, type ClusterWorker } from '../src/process/cluster-worker.js';
import { ConfigError, resolveWorkers } from '../src/config/load.js';

export default class Serve extends GatewayCommand {
  static override description =
    'Serve the HTTP API (under /v1) until SIGTERM or SIGINT, then stop gracefully. On SQLite, one serve per database unless cache.url is Redis (which shares the rate limits): a second is refused, naming the first; gateway worker and the other commands run beside it. --workers N (server.workers) serves from N processes on one port, sharing their limits and caches, replaced one by one on SIGHUP or gateway reload.';
  static override examples = ['<%= config.bin %> serve', '<%= config.bin %> serve --host 0.0.0.0 --port 8080', '<%= config.bin %> serve --workers auto'];
  static override flags = {
    host: Flags.string({ description: 'address to listen on (default: server.host, GATEWAY_HOST)' }),
    port: Flags.integer({ description: 'port to listen on, 0 for any free port (default: server.port, GATEWAY_PORT)', min: 0, max: 65535 }),
    worker: Flags.boolean({ description: 'also run the job runner in this process (--no-worker: API only)', default: true, allowNo: true }),
    workers: Flags.string({
      description:
        'serving processes on one port: N, or auto (one per core); above 1 a primary starts them, shares their limits and caches, restarts one that dies, and replaces them on SIGHUP or gateway reload (default: server.workers, 1)',
      parse: async (value) => {
        if (value !== 'auto' && !/^[1-9]\d{0,2}$/.test(value)) throw new Error(`expected a number of workers (1-256) or auto, got "${value}"`);
        return value;
      },
    }),
    bot: Flags.boolean({ description: 'also run the Telegram bot in this process (the `bot` section of the config; docs/bot.md)', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    this.jsonOutput = flags.json;
    let member: ClusterWorker | undefined;
    try {
      const config = this.loadConfiguration(flags.config);
      const workers = flags.workers === undefined ? config.server.workers : resolveWorkers(flags.workers === 'auto' ? 'auto' : Number(flags.workers));
      // The bot takes one token's updates in one process (its lock refuses a second), and a
      // reload starts each new worker beside the old one: with several workers it runs apart.
      if (flags.bot && workers > 1) throw new ConfigError('--bot', ['--bot runs the Telegram bot inside a single serving process; with more than one worker run it as its own process (gateway bot), docs/bot.md']);
      if (cluster.isPrimary && workers > 1) {
        // The primary re-reads the file at each reload; --host/--port stay as given (src/process/cluster-primary.ts).
        const overridden = (loaded: typeof config) => ({ ...loaded, server: { ...loaded.server, host: flags.host ?? loaded.server.host, port: flags.port ?? loaded.server.port } });
        return await runPrimary(overridden(config), { workers, json: flags.json, jobRunner: flags.worker, loadConfig: () => overridden(this.loadConfiguration(flags.config)) });
      }
      member = cluster.isWorker ? await joinCluster() : undefined;
      const jobRunner = flags.worker && (member?.jobRunner ?? true);
      await startProcess(config, { json: flags.json, processMetrics: true, clusterWorker: member?.startOptions }, async (services) => {
        const { config } = services;
        // A worker's primary holds the lock for all of them.
        const lock = member ? { release: async () => undefined } : await lockServe(services);
        const server = await startServer(services, { host: flags.host ?? config.server.host, port: flags.port ?? config.server.port, jobRunner }).catch(async (error: unknown) => {
          await lock.release();
          throw error;
        });
        if (member) nameWorkerInResponses(server.server);
        // grammY is loaded only with --bot (a dynamic import): a serve without the bot never pays for it.
        const bot = flags.bot
          ? await import('../src/bot/start-bot.js').then(({ startBot }) => startBot(services)).catch(async (error: unknown) => {
              await server.stop().catch(() => undefined);
              await lock.release();
              throw error;
            })
          : undefined;
        const database = config.database.client === 'sqlite' ? `sqlite:${config.database.filename}` : 'postgres';
        services.logger.info({ url: server.url, ...(server.metricsUrl ? { metrics_url: `${server.metricsUrl}/metrics` } : {}), database, job_runner: jobRunner, cache: config.cache.url.startsWith('redis') ? 'redis' : 'memory', models: services.catalog.enabledModels.length }, 'gateway listening');
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
      member?.failed(error);
      this.fail(error);
    }
  }
}
