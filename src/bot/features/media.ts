// Images, video and music (docs/bot.md, "Images, video and music"). `/image <prompt>`,
// `/video <prompt>` and `/music <prompt>` are answered with the price the catalog gives the
// default model of the kind (the same quote POST /v1/images/price, /v1/videos/price and
// /v1/audio/music/price answer) under a "Generate for X ₽" button (media-quotes.ts). The press
// is answered at once, takes the quote once (a double or stale press does nothing more), and
// then, as the account's bot key (bot-call.ts):
// - an image is generated (image-reply.ts) and sent as a photo, the original as a document;
// - a video or a song becomes a job (the job pipeline, with its hold): the bot says it is
//   queued and delivers the result when the job ends (job-deliveries.ts, its own loop).
// A price that changed between the quote and the press is quoted again, never charged unseen.
import { setTimeout as sleep } from 'node:timers/promises';
import { InlineKeyboard } from 'grammy';
import { imageBody } from '../../dialects/openai-media/images.js';
import { musicFields } from '../../dialects/openai-media/music.js';
import { videoFields } from '../../dialects/openai-media/videos.js';
import { quoteImages } from '../../pipeline/images.js';
import { createMusic, quoteMusic } from '../../pipeline/music.js';
import { createVideo, quoteVideo } from '../../pipeline/videos.js';
import type { ServerServices } from '../../services.js';
import { shownRub } from '../media-texts.js';
import type { BotDeps, BotFeature, Person } from '../bot-app.js';
import { callAsBot } from '../bot-call.js';
import { mediaCaller } from '../media-caller.js';
import { generateImageReply } from '../image-reply.js';
import { JobDeliveries, runDeliveries } from '../job-deliveries.js';
import { buyPrefix, type MediaQuote, MediaQuotes, type QuoteKind } from '../media-quotes.js';
import { kindName, mediaTexts, type MediaTexts } from '../media-texts.js';
import type { LinkedAccount } from '../telegram-link.js';
import { refusalText } from './chat.js';

const commands: Record<string, QuoteKind> = { image: 'image', video: 'video', music: 'music' };

export const mediaFeature: BotFeature = (bot, deps) => {
  const { services } = deps;
  const quotes = new MediaQuotes(services.db, services.now);
  const deliveries = new JobDeliveries(services.db, services.now);
  deps.track(() => runDeliveries(deps, deliveries));
  deps.track(() => pruneQuotes(deps, quotes));

  bot.command(Object.keys(commands), async (ctx) => {
    const person = ctx.person!;
    const mt = textsOf(person);
    const kind = commands[ctx.message!.text.slice(1).split(/[\s@]/)[0]!.toLowerCase()]!;
    const prompt = ctx.match.trim();
    if (prompt === '') {
      await ctx.reply(mt.promptMissing(kind));
      return;
    }
    const account = await deps.accountOf(ctx);
    if (!account) return;
    let priceUnits: bigint;
    try {
      priceUnits = priceOf(services, kind, prompt);
    } catch (error) {
      await ctx.reply(await refusalText(deps, account, person.t, error));
      return;
    }
    const quote = await quotes.create({ telegramId: String(person.telegramId), chatId: ctx.chat.id, kind, prompt, priceUnits });
    await ctx.reply(mt.quote(kindName(mt, kind), prompt), { parse_mode: 'HTML', reply_markup: buyButton(mt, quote) });
  });

  bot.callbackQuery(new RegExp(`^${buyPrefix}`), async (ctx) => {
    const person = ctx.person!;
    const mt = textsOf(person);
    const account = await deps.accountOf(ctx);
    if (!account) {
      await ctx.answerCallbackQuery();
      return;
    }
    const taken = await quotes.take(ctx.callbackQuery.data.slice(buyPrefix.length), person.telegramId);
    if ('refused' in taken) {
      const text = taken.refused === 'taken' ? mt.quoteTaken : taken.refused === 'stale' ? mt.quoteStale : mt.quoteUnknown;
      await ctx.answerCallbackQuery({ text, show_alert: taken.refused !== 'taken' });
      return;
    }
    await ctx.answerCallbackQuery();
    const { quote } = taken;
    // The button goes: the message stays as the record of what was asked.
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    deps.background(quote.chatId, () => run(deps, quotes, deliveries, person, account, quote));
  });
};

/** Removes quotes past any use, hourly until the bot stops. */
async function pruneQuotes(deps: BotDeps, quotes: MediaQuotes): Promise<void> {
  while (!deps.stopping.aborted) {
    await quotes.prune().catch((error: unknown) => deps.services.logger.warn({ err: error }, 'old bot quotes could not be removed'));
    await sleep(3_600_000, undefined, { signal: deps.stopping }).catch(() => undefined);
  }
}

function textsOf(person: Person): MediaTexts {
  return mediaTexts[person.settings.language];
}

function buyButton(mt: MediaTexts, quote: MediaQuote): InlineKeyboard {
  return new InlineKeyboard().text(mt.buttonGenerate(shownRub(quote.priceUnits)), `${buyPrefix}${quote.id}`);
}

/** The catalog's price of `prompt` made by the kind's default model: the /price endpoints' quote. */
function priceOf(services: ServerServices, kind: QuoteKind, prompt: string): bigint {
  if (kind === 'image') return quoteImages(services, imageBody.parse({ prompt })).totalUnits;
  if (kind === 'video') return quoteVideo(services, videoFields.parse({ prompt }), 0).priceUnits;
  return quoteMusic(services, musicFields.parse({ prompt })).priceUnits;
}

async function run(deps: BotDeps, quotes: MediaQuotes, deliveries: JobDeliveries, person: Person, account: LinkedAccount, quote: MediaQuote): Promise<void> {
  const { services, api } = deps;
  const mt = textsOf(person);
  const priceNow = (() => {
    try {
      return priceOf(services, quote.kind, quote.prompt);
    } catch {
      return undefined;
    }
  })();
  if (priceNow !== undefined && priceNow !== quote.priceUnits) {
    const fresh = await quotes.create({ telegramId: quote.telegramId, chatId: quote.chatId, kind: quote.kind, prompt: quote.prompt, priceUnits: priceNow });
    await api.sendMessage(quote.chatId, mt.priceChanged(shownRub(priceNow)), { reply_markup: buyButton(mt, fresh) });
    return;
  }
  if (quote.kind === 'image') {
    await generateImageReply(deps, person, account, quote);
    return;
  }
  let jobId: string;
  try {
    const route = quote.kind === 'video' ? { route: '/v1/videos', scope: 'video' as const } : { route: '/v1/audio/music', scope: 'music' as const };
    ({ jobId } = await callAsBot(services, deps.keys, account.accountId, route, async (call) => {
      const caller = mediaCaller(call, route.scope);
      const { job } = quote.kind === 'video' ? await createVideo(services, caller, videoFields.parse({ prompt: quote.prompt }), []) : await createMusic(services, caller, musicFields.parse({ prompt: quote.prompt }));
      await deliveries.add(job.id, person.telegramId, quote.chatId, person.settings.language);
      // Held, not charged: the job's end settles it.
      return { chargedUnits: 0n, jobId: job.id };
    }));
  } catch (error) {
    await api.sendMessage(quote.chatId, await refusalText(deps, account, person.t, error));
    return;
  }
  services.logger.info({ job_id: jobId, telegram_id: quote.telegramId }, 'the bot queued a job');
  await api.sendMessage(quote.chatId, mt.queued(kindName(mt, quote.kind)));
}
