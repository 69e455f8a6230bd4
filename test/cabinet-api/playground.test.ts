// The cabinet's playground over HTTP with a logged-in session: chat streams through the
// chat-completions handler and its charge is in the cabinet's history and overview at once,
// with the key `cabinet`; image prices come from the function that charges.
import { loginAs, cabinetHeaders } from '../helpers/cabinet.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

testOnBackends('playground chat streams, and its exact charge is in the history at once with the key `cabinet`', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  const response = await fetch(`${gateway.url}/cabinet/api/chat/completions`, {
    method: 'POST',
    headers: cabinetHeaders(login, { 'content-type': 'application/json' }),
    body: JSON.stringify({ model: 'sim/chat', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Tell me a short story' }] }),
  });
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = (await response.text())
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
  t.is(events.at(-1), '[DONE]');
  const chunks = events.slice(0, -1).map((data) => JSON.parse(data));
  t.true(chunks.filter((chunk) => chunk.choices?.[0]?.delta?.content).length > 1, 'the answer came in several chunks');
  const usage = chunks.at(-1).usage;
  t.truthy(usage);
  // sim/chat: 13.50 RUB per 1M input tokens, 1.35 cached, 54.00 output; 10^4 units per RUB, rounded up once.
  const cached = BigInt(usage.prompt_tokens_details?.cached_tokens ?? 0);
  const numerator = (BigInt(usage.prompt_tokens) - cached) * 135_000n + cached * 13_500n + BigInt(usage.completion_tokens) * 540_000n;
  const expectedUnits = (numerator + 999_999n) / 1_000_000n;
  const expectedRub = `-0.${expectedUnits.toString().padStart(4, '0')}`;
  t.true(expectedUnits > 0n && expectedUnits < 10_000n);

  // No flush, no wait: the charge and its usage record are one statement.
  const history = (await (await fetch(`${gateway.url}/cabinet/api/history?kind=charge`, { headers: { cookie: login.cookie } })).json()) as any;
  t.is(history.data.length, 1);
  t.like(history.data[0], { kind: 'charge', model: 'sim/chat', amount_rub: expectedRub, key_name: 'cabinet', description: 'chat-completions sim/chat' });
  const cabinetKey = (await gateway.services.apiKeys.list(accountId)).find((key) => key.purpose === 'cabinet');
  t.is(history.data[0].key_id, cabinetKey?.id);
  const overview = (await (await fetch(`${gateway.url}/cabinet/api/overview`, { headers: { cookie: login.cookie } })).json()) as any;
  t.is(overview.spend.today_rub, expectedRub.slice(1));
  t.deepEqual(overview.by_model, [{ model: 'sim/chat', rub: expectedRub.slice(1), requests: 1 }]);
});

testOnBackends('playground images: the quote, then the generation charged exactly that, in the history at once', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  const request = { model: 'sim/image', prompt: 'a green triangle', quality: 'high', n: 2 };
  const post = (path: string) =>
    fetch(`${gateway.url}/cabinet/api/images/${path}`, { method: 'POST', headers: cabinetHeaders(login, { 'content-type': 'application/json' }), body: JSON.stringify(request) });
  const quote = await post('price');
  t.is(quote.status, 200);
  t.deepEqual(await quote.json(), { object: 'image.price', model: 'sim/image', n: 2, unit_price_rub: '15.03', price_rub: '30.0600', price_usd: '0.334' });
  const made = await post('generations');
  t.is(made.status, 200);
  t.is(((await made.json()) as any).data.length, 2);
  const history = (await (await fetch(`${gateway.url}/cabinet/api/history?kind=charge`, { headers: { cookie: login.cookie } })).json()) as any;
  t.is(history.data.length, 1);
  // No flush, no wait: the media charge's usage record, naming the key, is written by its settle.
  t.like(history.data[0], { model: 'sim/image', amount_rub: '-30.0600', balance_after_rub: '69.9400', key_name: 'cabinet' });
});
