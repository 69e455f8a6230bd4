// /start (with a deep link's token: linking), /help, /new and /unlink (docs/bot.md).
// /start finds the account linked to this Telegram user, or makes one when sign-up is open, or
// says how to link; `/start gwt_…` (the cabinet's "Connect Telegram" link) links first.
import type { BotFeature } from '../bot-app.js';

export const startFeature: BotFeature = (bot, deps) => {
  bot.command('start', async (ctx) => {
    const person = ctx.person!;
    const { t } = person;
    const payload = ctx.match.trim();
    if (payload.startsWith('gwt_')) {
      const outcome = await deps.links.redeem(payload, person.telegramId);
      if (outcome === 'linked') {
        await ctx.reply(t.linked);
        return;
      }
      await ctx.reply(outcome === 'taken' ? t.linkTaken : t.linkInvalid);
      return;
    }
    const account = await deps.accountOf(ctx);
    if (account) await ctx.reply(t.welcome(ctx.from!.first_name), { parse_mode: 'HTML' });
  });

  bot.command('help', async (ctx) => {
    await ctx.reply(ctx.person!.t.help);
  });

  bot.command('new', async (ctx) => {
    await deps.conversations.clear(ctx.chat.id);
    await ctx.reply(ctx.person!.t.newConversation);
  });

  bot.command('unlink', async (ctx) => {
    const person = ctx.person!;
    const found = await deps.links.find(person.telegramId);
    if ('found' in found) await deps.links.unlinkUser(found.found.user.id, `telegram:${person.telegramId}`);
    await deps.conversations.clear(ctx.chat.id);
    await ctx.reply('found' in found ? person.t.unlinked : person.t.notLinked(deps.services.config.cabinet.publicUrl), { parse_mode: 'HTML' });
  });
};
