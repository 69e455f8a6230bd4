// Settings as inline keyboards (docs/bot.md, "Settings"): /settings shows the model, language,
// price display and spoken replies with buttons; "Model" lists the enabled text models as
// buttons (callback data carries the model's index in that list: ids may be longer than
// Telegram's 64 bytes of callback data). Choices are kept per Telegram user (bot-users.ts).
import { InlineKeyboard } from 'grammy';
import type { BotContext, BotDeps, BotFeature, Person } from '../bot-app.js';
import { chatModelOf } from './chat.js';

const textModels = (deps: BotDeps) => deps.services.catalog.enabledModels.filter((model) => model.type === 'text');

function settingsView(deps: BotDeps, person: Person): { text: string; keyboard: InlineKeyboard } {
  const { t, settings } = person;
  const showPrice = settings.showPrice ?? deps.config.showPrice;
  const model = chatModelOf(deps, person);
  const name = deps.services.catalog.enabledModels.find((candidate) => candidate.id === model)?.config.name ?? model;
  const keyboard = new InlineKeyboard()
    .text(t.buttonModel, 'set:models')
    .text(t.buttonLanguage, 'set:language')
    .row()
    .text(t.buttonPrices(showPrice), 'set:price')
    .text(t.buttonSpoken(settings.spokenReplies), 'set:spoken');
  return { text: t.settingsTitle(name, t.languageName, showPrice, settings.spokenReplies), keyboard };
}

async function showSettings(ctx: BotContext, deps: BotDeps, person: Person, edit: boolean): Promise<void> {
  const view = settingsView(deps, person);
  if (edit) await ctx.editMessageText(view.text, { parse_mode: 'HTML', reply_markup: view.keyboard });
  else await ctx.reply(view.text, { parse_mode: 'HTML', reply_markup: view.keyboard });
}

export const settingsFeature: BotFeature = (bot, deps) => {
  bot.command('settings', (ctx) => showSettings(ctx, deps, ctx.person!, false));

  bot.callbackQuery(/^set:(language|price|spoken)$/, async (ctx) => {
    const person = ctx.person!;
    const { settings } = person;
    const change = ctx.match[1];
    if (change === 'language') await deps.people.change(person.telegramId, { language: settings.language === 'ru' ? 'en' : 'ru' });
    if (change === 'price') await deps.people.change(person.telegramId, { showPrice: !(settings.showPrice ?? deps.config.showPrice) });
    if (change === 'spoken') await deps.people.change(person.telegramId, { spokenReplies: !settings.spokenReplies });
    await ctx.answerCallbackQuery();
    await showSettings(ctx, deps, await deps.reload(ctx), true);
  });

  bot.callbackQuery('set:models', async (ctx) => {
    const person = ctx.person!;
    const current = chatModelOf(deps, person);
    const keyboard = new InlineKeyboard();
    textModels(deps).forEach((model, index) => keyboard.text(`${model.id === current ? '✓ ' : ''}${model.config.name}`, `model:${index}`).row());
    await ctx.answerCallbackQuery();
    await ctx.editMessageText(person.t.chooseModel, { reply_markup: keyboard });
  });

  bot.callbackQuery(/^model:(\d{1,4})$/, async (ctx) => {
    const person = ctx.person!;
    const model = textModels(deps)[Number(ctx.match[1])];
    await ctx.answerCallbackQuery();
    if (!model) return;
    await deps.people.change(person.telegramId, { model: model.id });
    const updated = await deps.reload(ctx);
    await ctx.editMessageText(updated.t.modelChosen(model.config.name), { parse_mode: 'HTML' });
  });
};
