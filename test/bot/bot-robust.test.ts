// The bot when Telegram pushes back (docs/bot.md, "Robustness"): a 429 is waited out for its
// retry_after; a user who blocked the bot gets nothing, costs nothing and fails nothing; an
// answer the gateway could not deliver is not charged. On both databases, against the fake
// Bot API server.
import { testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { sentTexts, startBotGateway, telegramUser } from './bot-gateway.js';

testOnBackends('a 429 from the Bot API is waited out for its retry_after, then the message goes', async (t, database) => {
  const { api, waits } = await startBotGateway(t, database);
  api.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } });
  api.pushUpdate(api.message(telegramUser(901), '/help'));
  await eventually(() => sentTexts(api, 901).length >= 2, { what: 'the retried message' });
  const [refused, retried] = api.callsOf('sendMessage', 901);
  t.is(refused!.answer!.error_code, 429);
  t.true(retried!.answer!.ok);
  t.is(retried!.params.text, refused!.params.text, 'the same message, sent again');
  t.deepEqual(waits, [1000], 'waited retry_after seconds (the test records the wait instead of sleeping)');
});

testOnBackends('a user who blocked the bot: nothing is asked of the model or charged, nothing fails, and writing again resumes', async (t, database) => {
  const { api } = await startBotGateway(t, database, { cabinet: { signup: 'open', signup_bonus: '10.00' } });
  const person = telegramUser(902);
  api.pushUpdate(api.message(person, '/start'));
  await eventually(() => sentTexts(api, 902).length >= 2, { what: 'the welcome' });
  api.block(902);
  api.pushUpdate(api.message(person, 'Are you there?'));
  const blockedAt = await eventually(async () => (await database.db('bot_users').where({ telegram_id: '902' }).first())?.blocked_at, { what: 'the user marked as gone' });
  t.truthy(blockedAt);
  t.is(Number((await database.db('request_log').where({ source: 'bot' }).count({ n: '*' }).first())!.n), 0, 'the model was not asked');
  t.is(Number((await database.db('ledger_transactions').where({ kind: 'charge' }).count({ n: '*' }).first())!.n), 0, 'nothing charged');
  t.is(Number((await database.db('holds').count({ n: '*' }).first())!.n), 0, 'nothing held');
  // They unblock and write: deliveries resume.
  api.unblock(902);
  api.pushUpdate(api.message(person, '/help'));
  await eventually(async () => (await database.db('bot_users').where({ telegram_id: '902' }).first())?.blocked_at === null, { what: 'unmarked' });
  const help = await eventually(() => api.callsOf('sendMessage', 902).find((call) => call.answer?.ok === true && String(call.params.text).startsWith('/new')), { what: 'the help' });
  t.truthy(help);
});

testOnBackends('an answer Telegram will not take (the gateway\'s fault, not the user\'s) is refunded in full; the conversation does not keep it', async (t, database) => {
  const { api, gateway } = await startBotGateway(t, database, { cabinet: { signup: 'open', signup_bonus: '10.00' } });
  const person = telegramUser(903);
  api.pushUpdate(api.message(person, '/start'));
  await eventually(() => sentTexts(api, 903).length >= 2, { what: 'the welcome' });
  // Every edit refused, as for a message Telegram cannot parse.
  api.failNext('editMessageText', { error_code: 400, description: "Bad Request: can't parse entities" }, 1000);
  api.pushUpdate(api.message(person, 'Hello'));
  const refund = await eventually(() => database.db('ledger_transactions').where({ kind: 'refund' }).first(), { what: 'the refund' });
  const charge = await database.db('ledger_transactions').where({ kind: 'charge' }).first();
  t.is(BigInt(refund.amount_units), -BigInt(charge.amount_units));
  t.is(refund.request_id, charge.request_id);
  const user = await gateway.services.users.users.findByIdentity('telegram', '903');
  const [membership] = await gateway.services.users.members.ofUser(user!.id);
  const balance = await gateway.services.ledger.balance(membership!.accountId);
  t.is(balance.balanceUnits, 100_000n, 'the sign-up bonus, whole');
  t.is(await database.db('bot_conversations').where({ chat_id: '903' }).first(), undefined, 'the undelivered answer is not remembered');
});
