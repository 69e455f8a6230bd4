// The account from Telegram (docs/bot.md, "Account"): /balance; /topup (a payment link through
// the gateway's payments — the amounts the cabinet offers as buttons, the first provider — when
// payments are configured, else the operator's contact, bot.topup_contact); /history (the last
// charges, from the same ledger the cabinet and GET /v1/history read); /models (the enabled text
// models and their prices per million tokens, as the catalog has them).
import { InlineKeyboard } from 'grammy';
import { readHistory } from '../../billing/history.js';
import { formatRub, parseRub } from '../../util/money.js';
import type { BotFeature } from '../bot-app.js';
import { splitText } from '../deliver.js';
import { escapeHtml } from '../texts.js';

/** Charges /history lists. */
const historyLength = 10;

export const accountFeature: BotFeature = (bot, deps) => {
  const { services } = deps;

  bot.command('balance', async (ctx) => {
    const account = await deps.accountOf(ctx);
    if (!account) return;
    const balance = await services.ledger.balance(account.accountId);
    await ctx.reply(ctx.person!.t.balance(formatRub(balance.balanceUnits), formatRub(balance.heldUnits), formatRub(balance.balanceUnits - balance.heldUnits)), { parse_mode: 'HTML' });
  });

  bot.command('topup', async (ctx) => {
    const account = await deps.accountOf(ctx);
    if (!account) return;
    const { t } = ctx.person!;
    const payments = services.payments?.payments;
    if (payments && payments.providers.size > 0) {
      const keyboard = new InlineKeyboard();
      for (const units of payments.config.presetsUnits) keyboard.text(`${formatRub(units).replace(/\.0+$/, '')} ₽`, `topup:${formatRub(units)}`);
      await ctx.reply(t.topupPick, { reply_markup: keyboard });
      return;
    }
    const contact = deps.config.topupContact;
    await ctx.reply(contact === undefined ? t.topupUnavailable : t.topupContact(contact), { parse_mode: 'HTML' });
  });

  bot.callbackQuery(/^topup:(\d{1,9}(\.\d{1,4})?)$/, async (ctx) => {
    await ctx.answerCallbackQuery();
    const account = await deps.accountOf(ctx);
    const payments = services.payments?.payments;
    if (!account || !payments) return;
    const units = parseRub(ctx.match[1]!);
    // Only the amounts offered: a forged callback cannot pay what the cabinet would refuse.
    if (!payments.config.presetsUnits.includes(units)) return;
    const [provider] = payments.providers.keys();
    const person = ctx.person!;
    const payment = await payments.create({ accountId: account.accountId, userId: account.user.id, email: account.user.email, locale: person.settings.language }, provider!, units);
    await ctx.reply(person.t.topupLink(formatRub(units), payment.confirmationUrl ?? ''), { parse_mode: 'HTML' });
  });

  bot.command('history', async (ctx) => {
    const account = await deps.accountOf(ctx);
    if (!account) return;
    const { t } = ctx.person!;
    const page = await readHistory(services.db, account.accountId, { limit: 50 });
    const charges = page.data.filter((item) => item.kind === 'charge').slice(0, historyLength);
    if (charges.length === 0) {
      await ctx.reply(t.historyEmpty);
      return;
    }
    const lines = charges.map((item) => `${new Date(item.created_at * 1000).toISOString().slice(0, 16).replace('T', ' ')}  ${item.amount_rub.replace(/^-/, '')} ₽  ${escapeHtml(item.model ?? item.description ?? '')}`);
    await ctx.reply(`${t.historyTitle}\n<code>${lines.join('\n')}</code>`, { parse_mode: 'HTML' });
  });

  bot.command('models', async (ctx) => {
    const { t } = ctx.person!;
    const lines = services.catalog.enabledModels
      .filter((model) => model.type === 'text')
      .map((model) => {
        const pricing = model.config.pricing;
        return `<b>${escapeHtml(model.config.name)}</b> (${escapeHtml(model.id)})\n${t.perMillionTokens(pricing.per_1m_input_tokens ?? '0', pricing.per_1m_output_tokens ?? '0')}`;
      });
    // Split between models (splitText cuts at the blank lines): a long catalog takes several messages.
    for (const part of splitText([t.modelsTitle, ...lines].join('\n\n'), 4000)) await ctx.reply(part, { parse_mode: 'HTML' });
  });
};
