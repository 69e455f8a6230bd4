// Who the bot's user is (docs/bot.md, "Who the user is"): a stranger signs up with open sign-up,
// is told how to link otherwise; the cabinet's one-time deep link links, /unlink and the cabinet
// unlink. Against the fake Bot API server, on both databases.
import { testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { newMember, userLogin } from '../helpers/users.js';
import { sentTexts, startBotGateway, telegramUser } from './bot-gateway.js';

testOnBackends('a stranger who sends /start gets an account of their own there and then (open sign-up), linked to their Telegram', async (t, database) => {
  const { api, gateway } = await startBotGateway(t, database);
  const person = telegramUser(501);
  api.pushUpdate(api.message(person, '/start'));
  const texts = await eventually(() => (sentTexts(api, 501).length >= 2 ? sentTexts(api, 501) : undefined), { what: 'the welcome' });
  t.is(texts[0], 'Welcome, User501! Your account is ready.');
  t.true(texts[1]!.startsWith('Hello, User501!'));
  const user = await gateway.services.users.users.findByIdentity('telegram', '501');
  t.truthy(user);
  const [membership] = await gateway.services.users.members.ofUser(user!.id);
  t.is(membership?.role, 'owner');
});

testOnBackends('with sign-up closed a stranger is told how to link; the cabinet deep link links once; /unlink and the cabinet unlink', async (t, database) => {
  const { api, gateway } = await startBotGateway(t, database, { cabinet: { signup: 'closed' } });
  const { services, url } = gateway;
  const person = telegramUser(502, 'ru');
  api.pushUpdate(api.message(person, '/start'));
  const refused = await eventually(() => sentTexts(api, 502)[0], { what: 'the answer to /start' });
  t.true(refused.startsWith('Этот Telegram ещё не привязан к аккаунту.'), refused);
  t.is(await services.users.users.findByIdentity('telegram', '502'), undefined, 'no account was made');

  const { accountId } = await gateway.newClient({ balanceUnits: 10_000n });
  const user = await newMember(services, { accountId, role: 'owner' });
  const browser = await userLogin(services, { accountId, userId: user.id });
  const headers = { cookie: browser.cookie, 'x-csrf-token': browser.csrf };
  const before = (await (await fetch(`${url}/cabinet/api/telegram`, { headers })).json()) as Record<string, unknown>;
  t.deepEqual(before, { available: true, bot_username: api.bot.username, linked: false, telegram_id: null });
  const created = (await (await fetch(`${url}/cabinet/api/telegram/link`, { method: 'POST', headers })).json()) as { link: string; expires_at: string };
  const token = new URL(created.link).searchParams.get('start')!;
  t.is(created.link, `https://t.me/${api.bot.username}?start=${token}`);
  t.regex(token, /^gwt_[A-Za-z0-9_-]{43}$/);
  t.is((await database.db('bot_link_tokens').first('token_hash'))!.token_hash.length, 64, 'only the hash is kept');

  api.pushUpdate(api.message(person, `/start ${token}`));
  await eventually(() => sentTexts(api, 502).length >= 2, { what: 'the link answer' });
  t.is(sentTexts(api, 502)[1], 'Telegram подключён к вашему аккаунту. Напишите что-нибудь, чтобы начать.');
  t.is((await services.users.users.findByIdentity('telegram', '502'))?.id, user.id);
  const linked = (await (await fetch(`${url}/cabinet/api/telegram`, { headers })).json()) as Record<string, unknown>;
  t.deepEqual(linked, { available: true, bot_username: api.bot.username, linked: true, telegram_id: '502' });

  // The token works once.
  const stranger = telegramUser(503);
  api.pushUpdate(api.message(stranger, `/start ${token}`));
  await eventually(() => sentTexts(api, 503)[0], { what: 'the answer to a used token' });
  t.is(sentTexts(api, 503)[0], 'This link is not valid any more (it was used, or it expired). Make a new one in your account: "Connect Telegram".');

  // Unlinked from the bot…
  api.pushUpdate(api.message(person, '/unlink'));
  await eventually(() => sentTexts(api, 502).length >= 3, { what: 'the unlink answer' });
  t.is(await services.users.users.findByIdentity('telegram', '502'), undefined);
  t.is(Number((await database.db('audit_log').where({ action: 'identity.unlink', target: user.id }).count({ n: '*' }).first())!.n), 1);

  // …and, linked again, from the cabinet.
  const again = (await (await fetch(`${url}/cabinet/api/telegram/link`, { method: 'POST', headers })).json()) as { link: string };
  api.pushUpdate(api.message(person, `/start ${new URL(again.link).searchParams.get('start')}`));
  await eventually(async () => (await services.users.users.findByIdentity('telegram', '502'))?.id === user.id, { what: 'linked again' });
  const removed = await fetch(`${url}/cabinet/api/telegram`, { method: 'DELETE', headers });
  t.is(removed.status, 200);
  t.deepEqual(await removed.json(), { available: true, bot_username: api.bot.username, linked: false, telegram_id: null });
  t.is(await services.users.users.findByIdentity('telegram', '502'), undefined);
});
