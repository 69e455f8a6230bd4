// Chat through the bot (docs/bot.md, "Chat"): a stranger starts, writes, and sees the answer
// stream into an edited message, charged exactly what the catalog's prices make of the usage
// the simulator reported, in the account's history with source bot. On both databases.
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { expectedChargeUnits } from '../helpers/chat-gateway.js';
import { eventually } from '../helpers/eventually.js';
import { formatRub } from '../../src/util/money.js';
import { drainUsageOutbox } from '../../src/billing/usage-outbox.js';
import { sentTexts, startBotGateway, telegramUser } from './bot-gateway.js';

testOnBackends('a stranger starts, chats and sees a streamed answer, charged exactly, recorded with source bot', async (t, database) => {
  const { api, gateway } = await startBotGateway(t, database, { cabinet: { signup: 'open', signup_bonus: '10.00' } });
  const person = telegramUser(701);
  api.pushUpdate(api.message(person, '/start'));
  await eventually(() => sentTexts(api, 701).length >= 2, { what: 'the welcome' });
  api.pushUpdate(api.message(person, 'Tell me a story [[sim:delay=5]]'));
  const final = await eventually(() => api.callsOf('editMessageText', 701).find((call) => String(call.params.text).includes('Cost:')), { what: 'the final edit' });
  const placeholder = api.callsOf('sendMessage', 701)[2]!;
  t.is(placeholder.params.text, '…', 'a placeholder is sent first, then edited');
  t.is(final.params.message_id, (placeholder.answer!.result as { message_id: number }).message_id);
  t.is(final.params.parse_mode, 'HTML');
  // Streamed: the message was edited as text arrived, never twice with the same text.
  const edits = api.callsOf('editMessageText', 701).map((call) => String(call.params.text));
  t.true(edits.length >= 2, `${edits.length} edits`);
  t.true(edits.every((text, index) => index === 0 || text !== edits[index - 1]), 'no edit repeats the text');
  t.true(edits.slice(0, -1).every((text, index) => edits.at(-1)!.startsWith(text.replace(/…$/, '')) || index < 0), 'each edit is a beginning of the final text');

  const user = await gateway.services.users.users.findByIdentity('telegram', '701');
  const [membership] = await gateway.services.users.members.ofUser(user!.id);
  const accountId = membership!.accountId;
  await drainUsageOutbox(database.db);
  const usage = await eventually(() => database.db('usage_records').where({ account_id: accountId }).first(), { what: 'the usage record' });
  const expected = expectedChargeUnits({ input: Number(usage.input_tokens), cached: Number(usage.cached_input_tokens ?? 0), output: Number(usage.output_tokens) });
  const charge = await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).first();
  t.is(-BigInt(charge.amount_units), expected, 'the charge is the catalog price of the reported usage');
  t.true(String(final.params.text).endsWith(`<i>Cost: ${formatRub(expected)} ₽</i>`), String(final.params.text));
  const balance = await gateway.services.ledger.balance(accountId);
  t.is(balance.balanceUnits, 100_000n - expected);
  t.is(balance.heldUnits, 0n);
  const key = await database.db('api_keys').where({ id: usage.key_id }).first();
  t.deepEqual([key.purpose, key.name], ['bot', 'bot']);
  const logged = await eventually(() => database.db('request_log').where({ account_id: accountId }).first(), { what: 'the request-log row' });
  t.like(logged, { source: 'bot', route: '/v1/chat/completions', model: 'sim/chat', status: 200, key_id: key.id, request_id: charge.request_id });
  await assertLedgerInvariants(t, database.db);
});
