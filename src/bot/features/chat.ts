// Chat (docs/bot.md, "Chat"): any plain text is answered by the user's text model
// (bot.default_model until they choose one), with the chat's recent turns (conversations.ts).
// The request is the chat pipeline's (runChat, Chat Completions, streamed) as the account's bot
// key (bot-call.ts): held, charged and recorded exactly as the same API call. The answer streams
// into the chat by edits (streamed-reply.ts); its price follows when shown.
//
// What is charged when delivery fails (docs/bot.md, "Nothing charged for what did not arrive"):
// - the placeholder message is sent before the model is asked: if Telegram refuses it, nothing
//   is asked, held or charged;
// - the user blocked the bot mid-answer: the upstream is stopped as for an API client that
//   disconnects, and what the model produced until then is charged (the user's own doing);
// - the whole answer could not be put in the chat for another reason (Telegram failing after
//   the 429 retries, a message it refuses): the gateway's fault, so its charge is refunded in
//   full (a `refund` ledger row naming the request), and the conversation does not keep it.
import type { BotDeps, BotFeature, Person } from '../bot-app.js';
import { callAsBot } from '../bot-call.js';
import { Corrections } from '../../billing/corrections.js';
import { chatCompletionsDialect } from '../../dialects/chat-completions/index.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { runChat } from '../../pipeline/chat.js';
import { ClientGoneError, type ResponseSink } from '../../pipeline/sink.js';
import { formatRub } from '../../util/money.js';
import { isUserGone } from '../deliver.js';
import { StreamedReply } from '../streamed-reply.js';
import { answerAloud } from './voice.js';
import type { BotTexts } from '../texts.js';
import type { LinkedAccount } from '../telegram-link.js';

export const chatFeature: BotFeature = (bot, deps) => {
  bot.on('message:text', async (ctx) => {
    const text = ctx.message.text;
    // An unknown command is not a question for the model.
    if (text.startsWith('/')) {
      await ctx.reply(ctx.person!.t.help);
      return;
    }
    const account = await deps.accountOf(ctx);
    if (!account) return;
    const person = ctx.person!;
    // Spoken too when the user switched spoken replies on (voice.ts).
    deps.background(ctx.chat.id, () => answerAloud(deps, person, account, ctx.chat.id, text));
  });
};

/** The user's text model: the chosen one while it is still an enabled text model, else bot.default_model. */
export function chatModelOf(deps: BotDeps, person: Person): string {
  const chosen = person.settings.model;
  if (chosen !== undefined && deps.services.catalog.enabledModels.some((model) => model.id === chosen && model.config.type === 'text')) return chosen;
  return deps.config.defaultModel;
}

/** Answers `text` in the chat (a typed message, or a voice message's transcript); the answer as delivered, or undefined when none was. */
export async function answer(deps: BotDeps, person: Person, account: LinkedAccount, chatId: number, text: string): Promise<string | undefined> {
  const { services, api, config } = deps;
  const { t } = person;
  const model = chatModelOf(deps, person);
  const turns = await deps.conversations.turns(chatId);
  const messages = deps.conversations.withMessage(turns, text);
  // Sent before the model is asked: a chat Telegram will not deliver to costs nothing.
  const placeholder = await api.sendMessage(chatId, t.thinking);
  let closeUpstream: (() => void) | undefined;
  const reply = new StreamedReply(api, chatId, placeholder.message_id, t, config.editIntervalMs, () => {
    closeUpstream?.();
    void deps.userGone(chatId).catch(() => undefined);
  });
  let failedMidway = false;
  const sink = chatSink({
    onDelta: (content, reasoning) => reply.update(content, reasoning),
    onError: () => (failedMidway = true),
    onClose: (listener) => (closeUpstream = listener),
  });
  let requestId = '';
  let chargedUnits = 0n;
  try {
    ({ chargedUnits } = await callAsBot(services, deps.keys, account.accountId, { route: '/v1/chat/completions', scope: 'chat' }, async (call) => {
      requestId = call.requestId;
      const outcome = await runChat(services, {
        dialect: chatCompletionsDialect,
        body: { model, messages, stream: true, stream_options: { include_usage: true } },
        apiKey: call.apiKey,
        requestId: call.requestId,
        sink,
        log: call.log,
      });
      return { chargedUnits: outcome.chargedUnits };
    }));
  } catch (error) {
    if (isUserGone(error) || error instanceof ClientGoneError) return;
    await reply.replace(await refusalText(deps, account, t, error));
    return;
  }
  if (reply.gone) return;
  if (failedMidway && reply.text.trim() === '') {
    await reply.replace(t.answerFailed);
    return;
  }
  const showPrice = person.settings.showPrice ?? config.showPrice;
  const lines = [failedMidway ? `<i>${t.answerCut}</i>` : undefined, showPrice ? `<i>${t.price(formatRub(chargedUnits))}</i>` : undefined].filter(Boolean);
  const delivered = await reply.finish(lines.length > 0 ? lines.join('\n') : undefined);
  if (!delivered) {
    if (reply.gone) return;
    // The gateway's own failure to deliver: the answer is not charged (see the header).
    if (chargedUnits > 0n) await refund(deps, account, requestId);
    return;
  }
  await deps.conversations.save(chatId, [...messages, { role: 'assistant', content: reply.text }]);
  return reply.text;
}

async function refund(deps: BotDeps, account: LinkedAccount, requestId: string): Promise<void> {
  const { services } = deps;
  try {
    await new Corrections(services.db, services.ledger, services.now).refund({ reference: requestId, accountId: account.accountId, reason: 'the bot could not deliver the answer', actor: 'bot' });
  } catch (error) {
    services.logger.error({ err: error, request_id: requestId }, "an undelivered bot answer's charge could not be refunded");
  }
}

/** What the user reads for a refusal before any output (no money, a limit, a key that may not). */
export async function refusalText(deps: BotDeps, account: LinkedAccount, t: BotTexts, error: unknown): Promise<string> {
  if (!(error instanceof GatewayError)) {
    deps.services.logger.error({ err: error }, 'a bot chat failed');
    return t.somethingWrong;
  }
  switch (error.code) {
    case 'insufficient_balance':
    case 'key_budget_exceeded': {
      const balance = await deps.services.ledger.balance(account.accountId);
      return t.insufficientBalance(formatRub(balance.balanceUnits - balance.heldUnits));
    }
    case 'rate_limit_exceeded':
    case 'tokens_per_minute_exceeded':
    case 'too_many_requests_in_flight':
      return t.busy;
    case 'insufficient_scope':
    case 'model_not_allowed':
    case 'invalid_api_key':
      return t.notAllowed;
    default:
      return error.status >= 500 ? t.answerFailed : t.somethingWrong;
  }
}

/**
 * A ResponseSink that reads the Chat Completions stream the pipeline writes (SSE `data:` lines)
 * and hands each chunk's text and reasoning on; an `error` event marks a failure midway.
 */
export function chatSink(handlers: { onDelta(content: string, reasoning: string): void; onError(message: string): void; onClose(listener: () => void): void }): ResponseSink {
  let buffer = '';
  const event = (data: string) => {
    if (data === '[DONE]') return;
    let chunk: { choices?: { delta?: { content?: string | null; reasoning_content?: string | null } }[]; error?: { message?: string } };
    try {
      chunk = JSON.parse(data) as typeof chunk;
    } catch {
      return;
    }
    if (chunk.error) handlers.onError(chunk.error.message ?? '');
    const delta = chunk.choices?.[0]?.delta;
    if (delta && (delta.content || delta.reasoning_content)) handlers.onDelta(delta.content ?? '', delta.reasoning_content ?? '');
  };
  return {
    setHeader: () => undefined,
    startStream: () => undefined,
    write(data) {
      // A chat stream writes SSE text; only streamed speech writes bytes.
      buffer += typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        for (const line of buffer.slice(0, end).split('\n')) if (line.startsWith('data:')) event(line.slice(5).trim());
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
      }
    },
    end: () => undefined,
    // Only raw audio streams are cut; a chat's failure arrives as an SSE error event.
    abort: () => undefined,
    sendJson: () => undefined,
    onClose: (listener) => handlers.onClose(listener),
  };
}
