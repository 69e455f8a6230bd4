// Starts the bot in a process (`gateway bot`, `serve --bot`): checks its configuration, takes the
// token's lock (bot-lock.ts), and takes updates by long polling (the default: grammY's loop,
// which first removes any webhook) or by webhook (bot.mode: webhook: a listener of its own at
// bot.webhook.listen for Telegram's POSTs, each checked for the secret token header, answered
// 200 at once and handled after; Telegram is told the URL with setWebhook). Handled updates are
// claimed by update_id (update-claims.ts), so a retried webhook delivery is handled once.
// Stopping: no new updates, the work in flight (streamed answers) finishes within
// server.drain_timeout, the lock is released.
import { timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Update } from 'grammy/types';
import type { BotConfig } from '../config/load.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ServerServices } from '../services.js';
import { listenFailure } from '../util/listen-failure.js';
import { type BotFeature, type BotOptions, botIdOf, createBot, type BotRuntime } from './bot-app.js';
import { lockBot } from './bot-lock.js';
import { botFeatures } from './features/index.js';
import { botTexts } from './texts.js';
import { pruneClaims } from './update-claims.js';

export interface RunningBot {
  /** The bot's @username (from getMe). */
  readonly username: string;
  /** mode webhook: where the listener answers (http://host:port). */
  readonly webhookUrl: string | undefined;
  readonly runtime: BotRuntime;
  stop(): Promise<void>;
}

/** A webhook POST larger than this is refused (updates are a few KB). */
const maxUpdateBytes = 1_048_576;

/** The configuration problems that keep the bot from starting; none: it can start. */
export function botConfigProblems(services: Pick<ServerServices, 'config' | 'catalog'>): string[] {
  const { bot } = services.config;
  if (bot === undefined) return ['the configuration has no bot section (docs/bot.md)'];
  const problems: string[] = [];
  if (bot.token === undefined) problems.push(`bot.token_env names ${bot.tokenEnv}, which is not set in this process's environment: set it to the token BotFather gave`);
  if (bot.mode === 'webhook' && bot.webhook?.secretToken === undefined) problems.push(`bot.webhook.secret_token_env names ${bot.webhook?.secretTokenEnv}, which is not set: set it to a random secret (A-Z, a-z, 0-9, _ and -)`);
  const model = services.catalog.enabledModels.find((candidate) => candidate.id === bot.defaultModel);
  if (!model) problems.push(`bot.default_model ${bot.defaultModel} is not an enabled model of the catalog`);
  else if (model.config.type !== 'text') problems.push(`bot.default_model ${bot.defaultModel} is a ${model.config.type} model; the bot chats with a text model`);
  return problems;
}

export async function startBot(services: ServerServices, options: BotOptions & { features?: readonly BotFeature[] } = {}): Promise<RunningBot> {
  const problems = botConfigProblems(services);
  if (problems.length > 0) throw new GatewayError('bot_not_configured', `the bot cannot start: ${problems.join('; ')}`);
  const config = services.config.bot as BotConfig;
  const token = config.token!;
  const lock = await lockBot(services.db, botIdOf(token), {
    heartbeatMs: config.lockHeartbeatMs,
    now: services.now,
    logger: services.logger,
    onLost: () => void running?.stop(),
  });
  let running: RunningBot | undefined;
  try {
    running = await startTaking(services, config, options, lock.release);
    return running;
  } catch (error) {
    await lock.release().catch(() => undefined);
    throw error;
  }
}

async function startTaking(services: ServerServices, config: BotConfig, options: BotOptions & { features?: readonly BotFeature[] }, releaseLock: () => Promise<void>): Promise<RunningBot> {
  const runtime = createBot(services, config, config.token!, options.features ?? botFeatures, options);
  const { bot } = runtime;
  await bot.init();
  // The command menu, in Russian for Russian-speaking users and English for everyone else; a failure only warns.
  await Promise.all([
    bot.api.setMyCommands(botTexts.en.menu),
    bot.api.setMyCommands(botTexts.ru.menu, { language_code: 'ru' }),
  ]).catch((error: unknown) => services.logger.warn({ err: error }, "the bot's command menu could not be set"));
  const pruner = setInterval(() => {
    pruneClaims(services.db, services.now()).catch((error: unknown) => services.logger.warn({ err: error }, 'old bot update claims could not be removed'));
  }, 3_600_000);
  pruner.unref();
  let server: http.Server | undefined;
  let webhookUrl: string | undefined;
  let polling: Promise<void> | undefined;
  if (config.mode === 'webhook') {
    const webhook = config.webhook!;
    server = webhookServer(runtime, webhook.path, webhook.secretToken!, services);
    try {
      server.listen(webhook.port, webhook.host);
      await once(server, 'listening');
    } catch (error) {
      clearInterval(pruner);
      throw listenFailure(error, webhook.host, webhook.port, { port: 'bot.webhook.listen in the config', host: 'bot.webhook.listen in the config' });
    }
    const address = server.address() as AddressInfo;
    webhookUrl = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    await bot.api.setWebhook(`${webhook.publicUrl}${webhook.path}`, { secret_token: webhook.secretToken, allowed_updates: ['message', 'callback_query'] });
  } else {
    // Announced once polling runs (the webhook removed): a failure before that fails the start.
    await new Promise<void>((resolve, reject) => {
      let started = false;
      polling = bot
        .start({
          allowed_updates: ['message', 'callback_query'],
          onStart: () => {
            started = true;
            resolve();
          },
        })
        .catch((error: unknown) => {
          if (!started) reject(error);
          else services.logger.error({ err: error }, 'the bot stopped taking updates');
        });
    }).catch((error: unknown) => {
      clearInterval(pruner);
      throw error;
    });
  }
  services.logger.info({ bot: bot.botInfo.username, mode: config.mode, ...(webhookUrl ? { webhook_listen: webhookUrl } : {}) }, 'bot started');
  let stopping: Promise<void> | undefined;
  return {
    username: bot.botInfo.username,
    webhookUrl,
    runtime,
    stop() {
      stopping ??= (async () => {
        clearInterval(pruner);
        if (polling) {
          await bot.stop().catch(() => undefined);
          await polling;
        }
        if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
        let deadline: NodeJS.Timeout | undefined;
        const expired = new Promise<void>((resolve) => (deadline = setTimeout(resolve, services.config.server.drainTimeoutMs)));
        await Promise.race([runtime.idle(), expired]);
        clearTimeout(deadline);
        await releaseLock();
      })();
      return stopping;
    },
  };
}

/** The webhook listener: POST <path> with Telegram's secret header → 200 at once, the update handled after. */
function webhookServer(runtime: BotRuntime, path: string, secret: string, services: ServerServices): http.Server {
  const expected = Buffer.from(secret);
  return http.createServer((request, response) => {
    const presented = Buffer.from(String(request.headers['x-telegram-bot-api-secret-token'] ?? ''));
    if (request.method !== 'POST' || request.url?.split('?')[0] !== path) {
      response.writeHead(404).end();
      request.resume();
      return;
    }
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      response.writeHead(401).end();
      request.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxUpdateBytes) chunks.push(chunk);
    });
    request.on('end', () => {
      let update: Update;
      try {
        if (size > maxUpdateBytes) throw new Error('too large');
        update = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Update;
        if (typeof update.update_id !== 'number') throw new Error('no update_id');
      } catch {
        response.writeHead(400).end();
        return;
      }
      // Answered before handling: Telegram waits for nobody's model, and resends what it thinks failed.
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      runtime.bot.handleUpdate(update).catch((error: unknown) => services.logger.error({ err: error, update_id: update.update_id }, 'the bot failed to handle a webhook update'));
    });
  });
}
