// A gateway with its Telegram bot, against a fake Bot API server (test/helpers/fake-bot-api.ts):
// the chat gateway's catalog (sim models at test prices), bot.api_url pointed at the fake, the
// bot started in-process as `gateway bot` starts it, its 429 waits recorded instead of slept.
import type { ExecutionContext } from 'ava';
import type { RunningBot } from '../../src/bot/start-bot.js';
import { startBot } from '../../src/bot/start-bot.js';
import type { TestDatabase } from '../helpers/backends.js';
import { startChatGateway } from '../helpers/chat-gateway.js';
import { FakeBotApi } from '../helpers/fake-bot-api.js';
import type { TestGateway } from '../helpers/gateway.js';

export interface BotGateway {
  readonly api: FakeBotApi;
  readonly gateway: TestGateway;
  readonly bot: RunningBot;
  /** The waits the 429 transformer asked for (ms), in order. */
  readonly waits: number[];
}

export async function startBotGateway(
  t: ExecutionContext,
  database: TestDatabase,
  options: { bot?: Record<string, unknown>; cabinet?: Record<string, unknown>; env?: Record<string, string>; now?: () => number; /** Run a job runner in the gateway (video, music). */ jobRunner?: boolean; /** More catalog models. */ models?: unknown[]; providers?: Record<string, unknown> } = {},
): Promise<BotGateway> {
  const api = await new FakeBotApi().start();
  t.teardown(() => api.close());
  const gateway = await startChatGateway(t, database, {
    raw: {
      cabinet: { signup: 'open', ...options.cabinet },
      bot: { username: api.bot.username, token_env: 'TEST_BOT_TOKEN', api_url: api.url, default_model: 'sim/chat', edit_interval: '1ms', ...options.bot },
    },
    env: { TEST_BOT_TOKEN: api.token, ...options.env },
    now: options.now,
    jobRunner: options.jobRunner,
    models: options.models,
    providers: options.providers,
  });
  const waits: number[] = [];
  const bot = await startBot(gateway.services, { wait: async (ms) => void waits.push(ms) });
  t.teardown(() => bot.stop());
  return { api, gateway, bot, waits };
}

/** A Telegram user for the tests. */
export function telegramUser(id: number, languageCode = 'en') {
  return { id, first_name: `User${id}`, username: `user${id}`, language_code: languageCode };
}

/** The texts the fake server was asked to send to a chat, in order (sendMessage text). */
export function sentTexts(api: FakeBotApi, chatId: number): string[] {
  return api.callsOf('sendMessage', chatId).map((call) => String(call.params.text));
}
