// The bot: grammY's Bot over the configured Bot API server (bot.api_url as grammY's apiRoot),
// every call through the 429 transformer (deliver.ts), and the features' handlers in order.
// Loaded only by `gateway bot` and `serve --bot` (a dynamic import): nothing of grammY is in
// the memory of a process without the bot.
//
// A feature is a function that registers its handlers on the bot (`BotFeature`): it receives
// the bot's dependencies (`BotDeps`). Each update's context carries the Telegram user's
// settings and texts (`ctx.person`); `deps.accountOf(ctx)` finds (or, with open sign-up, makes)
// the account to act for, or answers how to link one. Long work (a streamed answer, a job's
// delivery) runs with `deps.background(chatId, work)`: the update's handler returns at once (the
// next update is not kept waiting), the chat's work runs in order, and a stop waits for it.
import { Bot, type Context } from 'grammy';
import type { BotConfig } from '../config/load.js';
import { AccountKeys } from '../cabinet/cabinet-key.js';
import type { ServerServices } from '../services.js';
import type { UserLocale } from '../users/users.js';
import { type BotUserSettings, BotUsers } from './bot-users.js';
import { Conversations } from './conversations.js';
import { isUserGone, retryAfterTransformer, type Wait } from './deliver.js';
import { type LinkedAccount, TelegramLinks } from './telegram-link.js';
import { type BotTexts, botTexts } from './texts.js';
import { claimUpdate } from './update-claims.js';
import { telegramUploadLimitBytes } from './upload-limit.js';

/** Who wrote, as the bot knows them: their settings and the texts in their language. */
export interface Person {
  readonly telegramId: number;
  readonly settings: BotUserSettings;
  readonly t: BotTexts;
}

export type BotContext = Context & { person?: Person };

export interface BotDeps {
  readonly services: ServerServices;
  readonly config: BotConfig;
  /** The bot's id (the public part of its token). */
  readonly botId: string;
  readonly links: TelegramLinks;
  readonly people: BotUsers;
  readonly conversations: Conversations;
  /** The accounts' bot keys (purpose `bot`): pass to callAsBot (bot-call.ts). */
  readonly keys: AccountKeys;
  /** The bot's own API (send, edit, …), for work outside an update's handler. */
  readonly api: Bot<BotContext>['api'];
  /** The account this update's user acts for; undefined after the user was told how to link (or why not). */
  accountOf(ctx: BotContext): Promise<LinkedAccount | undefined>;
  /** Runs `work` after the handler returns, in order with the chat's other work; a stop waits for it. Its failure is logged, and a blocked user marked. */
  background(chatId: number, work: () => Promise<void>): void;
  /** Runs `work` beside everything else (not in the chat's order: a job's long wait), tracked so a stop waits for it; its failure is logged. */
  track(work: () => Promise<void>): void;
  /** Marks a user who blocked the bot (deliveries to them stop until they write again). */
  userGone(telegramId: number | string): Promise<void>;
  /** The user's settings as they are now (after a change). */
  reload(ctx: BotContext): Promise<Person>;
  /** Aborted when the bot stops: a feature's own loop (the job deliveries) ends on it. */
  readonly stopping: AbortSignal;
  /** The largest file the bot uploads; a larger one is sent as a download link (job-deliveries.ts). */
  readonly uploadLimitBytes: number;
}

export type BotFeature = (bot: Bot<BotContext>, deps: BotDeps) => void;

export interface BotRuntime {
  readonly bot: Bot<BotContext>;
  readonly deps: BotDeps;
  /** A stop's drain: the features' loops are told to end (deps.stopping), and the background work in flight is waited for. */
  idle(): Promise<void>;
}

export interface BotOptions {
  /** The wait before retrying a 429 (tests pass one that returns at once). */
  readonly wait?: Wait;
  /** The largest file the bot uploads (default Telegram's 50 MB; tests pass a small one). */
  readonly uploadLimitBytes?: number;
}

/** The bot id of a token: the part before the colon (public; what the lock and update claims key on). */
export function botIdOf(token: string): string {
  return token.split(':')[0] ?? '';
}

export function createBot(services: ServerServices, config: BotConfig, token: string, features: readonly BotFeature[], options: BotOptions = {}): BotRuntime {
  const bot = new Bot<BotContext>(token, { client: { apiRoot: config.apiUrl } });
  bot.api.config.use(retryAfterTransformer(options.wait));
  const { db, now, logger } = services;
  const botId = botIdOf(token);
  const people = new BotUsers(db, now);
  const links = new TelegramLinks(db, services.users, services.config.cabinet.linkTtlMs, now);
  const chains = new Map<number, Promise<void>>();
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();

  const personOf = async (ctx: BotContext): Promise<Person> => {
    const from = ctx.from!;
    const settings = await people.get(from.id, from.language_code);
    return { telegramId: from.id, settings, t: botTexts[settings.language] };
  };

  const deps: BotDeps = {
    services,
    config,
    botId,
    links,
    people,
    conversations: new Conversations(db, { maxTurns: config.maxTurns, maxTokens: config.maxTokens }, now),
    keys: new AccountKeys(db, services.apiKeys, 'bot'),
    api: bot.api,
    async accountOf(ctx) {
      const person = ctx.person!;
      const found = await links.find(person.telegramId);
      if ('found' in found) return found.found;
      if (found.refused === 'user_disabled') {
        await ctx.reply(person.t.userDisabled);
        return undefined;
      }
      const from = ctx.from!;
      const made = await links.signUp({ id: from.id, firstName: from.first_name, lastName: from.last_name, username: from.username }, person.settings.language as UserLocale);
      if (made) {
        await ctx.reply(person.t.welcomeNew(from.first_name), { parse_mode: 'HTML' });
        return made;
      }
      await ctx.reply(found.refused === 'not_linked' ? person.t.notLinked(services.config.cabinet.publicUrl) : person.t.signupRefused, { parse_mode: 'HTML' });
      return undefined;
    },
    background(chatId, work) {
      const previous = chains.get(chatId) ?? Promise.resolve();
      const next = previous.then(work).catch(async (error: unknown) => {
        if (isUserGone(error)) await deps.userGone(chatId).catch(() => undefined);
        else logger.error({ err: error, chat_id: chatId }, 'the bot failed to handle a message');
      });
      chains.set(chatId, next);
      running.add(next);
      void next.finally(() => {
        running.delete(next);
        if (chains.get(chatId) === next) chains.delete(chatId);
      });
    },
    track(work) {
      const task = work().catch((error: unknown) => {
        if (!isUserGone(error)) logger.error({ err: error }, 'a bot task failed');
      });
      running.add(task);
      void task.finally(() => running.delete(task));
    },
    async userGone(telegramId) {
      logger.info({ telegram_id: String(telegramId) }, 'a user blocked the bot: deliveries to them stop');
      await people.change(telegramId, { blockedAt: now() });
    },
    async reload(ctx) {
      const person = await personOf(ctx);
      ctx.person = person;
      return person;
    },
    stopping: stopping.signal,
    uploadLimitBytes: options.uploadLimitBytes ?? telegramUploadLimitBytes,
  };

  // An update is handled once (update-claims.ts), whether it came by polling or by webhook.
  bot.use(async (ctx, next) => {
    if (!(await claimUpdate(db, botId, ctx.update.update_id, now()))) return;
    if (ctx.from === undefined || ctx.from.is_bot) return;
    const person = await personOf(ctx);
    ctx.person = person;
    // They write again: deliveries to them resume.
    if (person.settings.blockedAt !== undefined) await people.change(person.telegramId, { blockedAt: null });
    await next();
  });
  for (const feature of features) feature(bot, deps);
  bot.catch((failure) => {
    if (isUserGone(failure.error)) {
      const id = failure.ctx.from?.id;
      if (id !== undefined) void deps.userGone(id).catch(() => undefined);
      return;
    }
    logger.error({ err: failure.error, update_id: failure.ctx.update.update_id }, 'the bot failed to handle an update');
  });
  return {
    bot,
    deps,
    async idle() {
      stopping.abort();
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
