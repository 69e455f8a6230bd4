// The bot's calls pass the key's whole gate (src/auth/key-gate.ts), as an API call with the
// account's bot key would: its requests in flight and its tokens per minute too, refused with the
// same catalog errors (in the request log) and told to the user in the plain words of a rate
// limit. The in-flight slot is given back when the call ends. On both databases.
import type { ApiKey } from '../../src/auth/api-keys.js';
import { testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import type { FakeBotApi } from '../helpers/fake-bot-api.js';
import { startBotGateway, telegramUser } from './bot-gateway.js';

const busy = 'Too many requests right now. Please wait a minute and try again.';

/** Every text the chat was shown: messages sent and edits. */
const shown = (api: FakeBotApi, chatId: number) => [...api.callsOf('sendMessage', chatId), ...api.callsOf('editMessageText', chatId)].map((call) => String(call.params.text));

/** Writes `text` and waits for its answer (the edit with its price) or the busy refusal; returns which. */
async function ask(api: FakeBotApi, person: ReturnType<typeof telegramUser>, text: string): Promise<'answered' | 'busy'> {
  const answered = () => api.callsOf('editMessageText', person.id).filter((call) => String(call.params.text).includes('Cost:')).length;
  const refused = () => shown(api, person.id).filter((shownText) => shownText === busy).length;
  const before = { answered: answered(), refused: refused() };
  api.pushUpdate(api.message(person, text));
  return eventually(() => (answered() > before.answered ? 'answered' : refused() > before.refused ? 'busy' : undefined), { what: `the reply to ${text}` });
}

async function botKeyOf(services: any, telegramId: number): Promise<ApiKey> {
  const user = await services.users.users.findByIdentity('telegram', String(telegramId));
  const [membership] = await services.users.members.ofUser(user!.id);
  const keys: ApiKey[] = await services.apiKeys.list(membership!.accountId);
  return keys.find((key) => key.purpose === 'bot' && key.revokedAt === null)!;
}

testOnBackends('a bot key with max_in_flight is refused while its slots are taken, the user told in plain words; the bot gives its own slot back', async (t, database) => {
  const { api, gateway } = await startBotGateway(t, database, { cabinet: { signup: 'open', signup_bonus: '10.00' } });
  const { services } = gateway;
  const person = telegramUser(901);
  api.pushUpdate(api.message(person, '/start'));
  await eventually(() => api.callsOf('sendMessage', 901).length >= 2, { what: 'the welcome' });
  t.is(await ask(api, person, 'Hello'), 'answered');
  const key = (await services.apiKeys.update((await botKeyOf(services, 901)).id, { maxInFlight: 1 }, { actor: 'test' })).after;

  // Another call of the key holds the one slot.
  const held = await services.keyLimits.enter(key, 'req_elsewhere');
  t.truthy(held);
  t.is(await ask(api, person, 'Are you there?'), 'busy');
  const row = await eventually(() => database.db('request_log').where({ key_id: key.id, error_code: 'too_many_requests_in_flight' }).first(), { what: 'the refusal logged' });
  t.like(row, { source: 'bot', status: 429, route: '/v1/chat/completions' });
  t.is(row.error_message, 'Too many requests at once: this key may have 1 in flight. Retry when one has ended.');
  await held!();

  // Its own calls give the slot back: one after another, each is admitted.
  t.is(await ask(api, person, 'Second'), 'answered');
  t.is(await ask(api, person, 'Third'), 'answered');
});

testOnBackends('a bot key over its tokens per minute is refused until the minute has drained, the user told in plain words', async (t, database) => {
  const clock = testClock();
  const { api, gateway } = await startBotGateway(t, database, { cabinet: { signup: 'open', signup_bonus: '10.00' }, now: clock.now });
  const { services } = gateway;
  const person = telegramUser(902);
  api.pushUpdate(api.message(person, '/start'));
  await eventually(() => api.callsOf('sendMessage', 902).length >= 2, { what: 'the welcome' });
  t.is(await ask(api, person, 'Hello'), 'answered');
  // A tpm far below what one answer uses: the call after the next finds the bucket full.
  const limited = (await services.apiKeys.update((await botKeyOf(services, 902)).id, { tpm: 5 }, { actor: 'test' })).after;
  t.is(await ask(api, person, 'Tell me a story'), 'answered', 'the first call under the limit runs: tokens are counted when charged');
  t.is(await ask(api, person, 'And another'), 'busy');
  const row = await eventually(() => database.db('request_log').where({ key_id: limited.id, error_code: 'tokens_per_minute_exceeded' }).first(), { what: 'the refusal logged' });
  t.like(row, { source: 'bot', status: 429 });
  t.regex(row.error_message, /^Token rate limit reached: 5 tokens per minute for this key/);

  const decision = (await services.keyLimits.checkTokens(limited))!;
  clock.advance(decision.retryAfterMs);
  t.is(await ask(api, person, 'Now?'), 'answered');
});
