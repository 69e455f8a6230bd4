// The cabinet's Telegram bot link (docs/cabinet.md, "Telegram bot"; src/bot/telegram-link.ts):
// - GET /cabinet/api/telegram → {available, bot_username, linked, telegram_id}
// - POST /cabinet/api/telegram/link → {link, expires_at}: a one-time deep link
//   https://t.me/<bot>?start=<token> that links the Telegram user who follows it to this user
// - DELETE /cabinet/api/telegram → {linked: false}: removes the link (the bot can do it too: /unlink)
// Only a user's session has a Telegram to link (an operator's login link acts for no user).
import type { TelegramLinkAnswer, TelegramLinkCreated } from '../../cabinet-api/answers.js';
import { TelegramLinks } from '../../bot/telegram-link.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import type { Context, Handler } from '../state.js';

const links = (services: ServerServices) => new TelegramLinks(services.db, services.users, services.config.cabinet.linkTtlMs, services.now);

function sessionUser(ctx: Context): string {
  const userId = ctx.state.session?.userId;
  if (!userId) throw new GatewayError('invalid_request', "This session was opened by the operator's login link and belongs to no user: sign in as a user to connect Telegram.");
  return userId;
}

async function answer(services: ServerServices, userId: string): Promise<TelegramLinkAnswer> {
  const telegramId = await links(services).linkedTelegramId(userId);
  return { available: services.config.bot !== undefined, bot_username: services.config.bot?.username ?? null, linked: telegramId !== undefined, telegram_id: telegramId ?? null };
}

export const cabinetTelegram: Handler = async (ctx, services) => {
  ctx.set('cache-control', 'no-store');
  ctx.body = await answer(services, sessionUser(ctx));
};

export const createTelegramLink: Handler = async (ctx, services) => {
  const userId = sessionUser(ctx);
  const bot = services.config.bot;
  if (bot === undefined) throw new GatewayError('invalid_request', 'This gateway has no Telegram bot.');
  const { token, expiresAt } = await links(services).createToken(userId);
  const created: TelegramLinkCreated = { link: `https://t.me/${bot.username}?start=${token}`, expires_at: new Date(expiresAt).toISOString() };
  ctx.set('cache-control', 'no-store');
  ctx.body = created;
};

export const deleteTelegramLink: Handler = async (ctx, services) => {
  const userId = sessionUser(ctx);
  await links(services).unlinkUser(userId, ctx.state.actor!);
  ctx.body = await answer(services, userId);
};
