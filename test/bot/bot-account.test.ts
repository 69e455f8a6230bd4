// The account from Telegram and the settings keyboards (docs/bot.md): /balance, /topup without
// payments (the operator's contact), /history, /models, the model choice and the price switch;
// and a linked cabinet user sees the bot's charges in the cabinet history with source bot.
import { testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { newMember, userLogin } from '../helpers/users.js';
import { sentTexts, startBotGateway, telegramUser } from './bot-gateway.js';

testOnBackends('a cabinet user links by the deep link, chats in Telegram, and the cabinet history shows the charge with source bot; /balance, /history, /topup, /models', async (t, database) => {
  const { api, gateway } = await startBotGateway(t, database, { cabinet: { signup: 'closed' }, bot: { topup_contact: '@operator' } });
  const { services, url } = gateway;
  const { accountId } = await gateway.newClient({ balanceUnits: 50_000n });
  const user = await newMember(services, { accountId, role: 'owner' });
  const browser = await userLogin(services, { accountId, userId: user.id });
  const headers = { cookie: browser.cookie, 'x-csrf-token': browser.csrf };
  const { link } = (await (await fetch(`${url}/cabinet/api/telegram/link`, { method: 'POST', headers })).json()) as { link: string };
  const person = telegramUser(801);
  api.pushUpdate(api.message(person, `/start ${new URL(link).searchParams.get('start')}`));
  await eventually(() => sentTexts(api, 801).length >= 1, { what: 'linked' });
  api.pushUpdate(api.message(person, 'Hello there'));
  await eventually(() => api.callsOf('editMessageText', 801).some((call) => String(call.params.text).includes('Cost:')), { what: 'the answer' });

  const history = (await (await fetch(`${url}/cabinet/api/history`, { headers })).json()) as { data: { kind: string; source: string | null; key_name: string | null; model: string | null; amount_rub: string }[] };
  const charge = history.data.find((item) => item.kind === 'charge');
  t.like(charge, { source: 'bot', key_name: 'bot', model: 'sim/chat' });
  const topup = history.data.find((item) => item.kind === 'topup');
  t.is(topup?.source, null, 'a credit has no key, so no source');

  const sent = sentTexts(api, 801).length;
  api.pushUpdate(api.message(person, '/balance'));
  await eventually(() => sentTexts(api, 801).length > sent, { what: '/balance' });
  const balance = await services.ledger.balance(accountId);
  const amount = `${balance.balanceUnits / 10_000n}.${String(balance.balanceUnits % 10_000n).padStart(4, '0')}`;
  t.is(sentTexts(api, 801).at(-1), `Balance: <b>${amount} ₽</b>\nReserved for running requests: 0.0000 ₽\nAvailable: ${amount} ₽`);

  api.pushUpdate(api.message(person, '/history'));
  await eventually(() => sentTexts(api, 801).length > sent + 1, { what: '/history' });
  t.regex(sentTexts(api, 801).at(-1)!, new RegExp(`^Recent charges:\\n<code>\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  ${charge!.amount_rub.replace('-', '')} ₽  sim/chat</code>$`));

  api.pushUpdate(api.message(person, '/topup'));
  await eventually(() => sentTexts(api, 801).length > sent + 2, { what: '/topup' });
  t.is(sentTexts(api, 801).at(-1), 'To add money, contact @operator.');

  api.pushUpdate(api.message(person, '/models'));
  await eventually(() => sentTexts(api, 801).length > sent + 3, { what: '/models' });
  const models = sentTexts(api, 801).at(-1)!;
  t.true(models.startsWith('Models and prices (₽):\n\n<b>sim chat</b> (sim/chat)\n10.00 in / 40.00 out per 1M tokens'), models);
  t.false(models.includes('sim/search'), 'only text models');
});

testOnBackends('settings: the model is chosen with a button and used for the next answer; the price can be hidden; the language switched', async (t, database) => {
  const { api } = await startBotGateway(t, database, { cabinet: { signup: 'open', signup_bonus: '10.00' } });
  const person = telegramUser(802);
  api.pushUpdate(api.message(person, '/settings'));
  const settings = await eventually(() => api.callsOf('sendMessage', 802).find((call) => String(call.params.text).startsWith('Settings')), { what: 'the settings' });
  t.is(settings.params.text, 'Settings\nModel: <b>sim chat</b>\nLanguage: English\nShow prices: on\nSpoken replies: off');
  const settingsId = (settings.answer!.result as { message_id: number }).message_id;
  api.pushUpdate(api.callback(person, 'set:models', settingsId));
  const list = await eventually(() => api.callsOf('editMessageText', 802).find((call) => call.params.text === 'Choose the model to chat with:'), { what: 'the model list' });
  const buttons = (list.params.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }).inline_keyboard.flat();
  t.is(buttons[0]!.text, '✓ sim chat');
  const reasoning = buttons.find((button) => button.text === 'sim reasoning')!;
  api.pushUpdate(api.callback(person, reasoning.callback_data, settingsId));
  await eventually(() => api.callsOf('editMessageText', 802).some((call) => call.params.text === 'Now chatting with sim reasoning.'), { what: 'the choice' });
  t.true(api.callsOf('answerCallbackQuery').length >= 2);

  api.pushUpdate(api.callback(person, 'set:price', settingsId));
  await eventually(() => api.callsOf('editMessageText', 802).some((call) => String(call.params.text).includes('Show prices: off')), { what: 'prices off' });
  api.pushUpdate(api.message(person, 'Think about it'));
  await eventually(async () => (await database.db('ledger_transactions').where({ kind: 'charge', model: 'sim/reasoning' }).first()) !== undefined, { what: 'charged to sim/reasoning' });
  const answers = () => api.callsOf('editMessageText', 802).filter((call) => call.params.message_id !== settingsId && call.params.text !== 'Now chatting with sim reasoning.');
  await eventually(() => answers().length >= 1, { what: 'the answer' });
  // Its final edit comes after the charge at the latest; none shows a price.
  t.false(answers().some((call) => String(call.params.text).includes('Cost:')), 'no price shown');
  api.pushUpdate(api.callback(person, 'set:language', settingsId));
  await eventually(() => api.callsOf('editMessageText', 802).some((call) => String(call.params.text).startsWith('Настройки\nМодель: <b>sim reasoning</b>\nЯзык: Русский')), { what: 'in Russian' });
});
