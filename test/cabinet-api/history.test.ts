// GET /cabinet/api/history over HTTP with a logged-in session: the filters (kind, model, key,
// since, until), cursor paging within a filter, the key of each charge, and the CSV export
// (exact content, streamed in pages).
import { loginAs, type CabinetLogin } from '../helpers/cabinet.js';
import { testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const dayMs = 86_400_000;
const start = Date.UTC(2026, 10, 20, 9, 0, 0);

async function getJson(gateway: TestGateway, login: CabinetLogin, query: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gateway.url}/cabinet/api/history${query}`, { headers: { cookie: login.cookie } });
  return { status: response.status, body: await response.json() };
}

/** An account with two keys, a chat charge by A on day 0, a chat and an image charge by B on day 1, a bonus on day 2. */
async function accountWithActivity(t: Parameters<Parameters<typeof testOnBackends>[1]>[0], database: Parameters<Parameters<typeof testOnBackends>[1]>[1]) {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { now: clock.now });
  const a = await gateway.newClient({ balanceUnits: 1_000_000n });
  const b = await gateway.services.apiKeys.create({ accountId: a.accountId, name: 'key B' });
  await gateway.services.apiKeys.update(a.keyId, { name: 'key A' }, { actor: 'test' });
  const chat = async (key: string) => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim/chat', messages: [{ role: 'user', content: 'Hello there' }] }),
    });
    t.is(response.status, 200, await response.text());
  };
  await chat(a.key);
  clock.advance(dayMs);
  await chat(b.key);
  const image = await fetch(`${gateway.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${b.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/image', prompt: 'a red square', quality: 'low' }),
  });
  t.is(image.status, 200, await image.text());
  clock.advance(dayMs);
  await gateway.services.ledger.credit(a.accountId, 50_000n, 'bonus', { description: 'welcome, "friend"' });
  const login = await loginAs(gateway.url, gateway.services, { account: a.accountId });
  return { gateway, clock, login, accountId: a.accountId, keyA: a.keyId, keyB: b.apiKey.id };
}

testOnBackends('history: each charge with its key; filters by kind, model, key, since and until; cursor paging within a filter', async (t, database) => {
  const { gateway, login, keyA, keyB } = await accountWithActivity(t, database);
  const all = await getJson(gateway, login, '');
  t.is(all.status, 200);
  t.is(all.body.object, 'list');
  t.deepEqual(
    all.body.data.map((item: any) => [item.kind, item.model, item.key_name]),
    [
      ['bonus', null, null],
      ['charge', 'sim/image', 'key B'],
      ['charge', 'sim/chat', 'key B'],
      ['charge', 'sim/chat', 'key A'],
      ['topup', null, null],
    ],
  );
  t.is(all.body.data[1].amount_rub, '-0.9900');
  t.is(all.body.data[1].key_id, keyB);
  t.is(all.body.data[3].key_id, keyA);
  t.like(all.body.data[0], { object: 'balance.transaction', amount_rub: '5.0000', description: 'welcome, "friend"', created_at: (start + 2 * dayMs) / 1000 });
  const ids = (query: string) => getJson(gateway, login, query).then((page) => page.body.data.map((item: any) => item.id));
  const byIndex = (...indexes: number[]) => indexes.map((index) => all.body.data[index].id);
  t.deepEqual(await ids('?kind=charge'), byIndex(1, 2, 3));
  t.deepEqual(await ids('?kind=topup'), byIndex(4));
  t.deepEqual(await ids('?model=sim/chat'), byIndex(2, 3));
  t.deepEqual(await ids(`?key=${keyA}`), byIndex(3));
  t.deepEqual(await ids(`?key=${keyB}`), byIndex(1, 2));
  t.deepEqual(await ids(`?key=${keyB}&model=sim/image`), byIndex(1));
  t.deepEqual(await ids('?key=key_unknown'), []);
  // since inclusive, until exclusive; a date is its UTC midnight, Unix seconds and ISO times work alike.
  t.deepEqual(await ids('?since=2026-11-21&until=2026-11-22'), byIndex(1, 2));
  t.deepEqual(await ids(`?since=${(start + dayMs) / 1000}&until=${(start + 2 * dayMs) / 1000}`), byIndex(1, 2));
  t.deepEqual(await ids(`?until=${new Date(start + dayMs).toISOString()}`), byIndex(3, 4));
  // 06:00 at UTC−3 is the bonus's own moment (09:00 UTC on day 2): inclusive.
  t.deepEqual(await ids(`?since=${encodeURIComponent('2026-11-22T06:00:00-03:00')}`), byIndex(0));

  // Paging by cursor keeps the filter: one row per page, no overlap, no gap.
  const first = await getJson(gateway, login, `?key=${keyB}&limit=1`);
  t.deepEqual(first.body.data.map((item: any) => item.id), byIndex(1));
  t.true(first.body.has_more);
  const second = await getJson(gateway, login, `?key=${keyB}&limit=1&cursor=${first.body.next_cursor}`);
  t.deepEqual(second.body.data.map((item: any) => item.id), byIndex(2));
  t.false(second.body.has_more);
  t.is(second.body.next_cursor, null);
  // Unfiltered pages of 2 join into the whole history.
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: any } = await getJson(gateway, login, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    seen.push(...page.body.data.map((item: any) => item.id));
    cursor = page.body.next_cursor;
  } while (cursor);
  t.deepEqual(seen, byIndex(0, 1, 2, 3, 4));
});

testOnBackends('history: bad filters are a 422 naming the parameter', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { accountId } = await gateway.newClient();
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  for (const [query, param] of [
    ['?kind=gift', 'kind'],
    ['?since=yesterday', 'since'],
    ['?until=2026-13-45', 'until'],
    ['?since=2026-11-02&until=2026-11-01', 'until'],
    ['?limit=0', 'limit'],
    ['?cursor=bm9wZQ', 'cursor'],
    ['?format=xml', 'format'],
  ] as const) {
    const { status, body } = await getJson(gateway, login, query);
    t.is(status, 422, query);
    t.deepEqual(body.detail[0].loc, ['query', param], query);
    t.is(body.error.param, param, query);
  }
});

testOnBackends('history CSV: a header row, every matching row newest first, times in UTC, money as exact decimal strings, RFC 4180 quoting', async (t, database) => {
  const { gateway, login, keyB } = await accountWithActivity(t, database);
  const all = (await getJson(gateway, login, '')).body.data;
  const response = await fetch(`${gateway.url}/cabinet/api/history?format=csv`, { headers: { cookie: login.cookie } });
  t.is(response.status, 200);
  t.is(response.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.is(response.headers.get('content-disposition'), 'attachment; filename="history-2026-11-22.csv"');
  const iso = (days: number) => new Date(start + days * dayMs).toISOString();
  const [bonus, image, chatB, chatA, topup] = all;
  const expected = [
    'id,created_at,kind,amount_rub,balance_after_rub,model,key_id,key_name,description,request_id',
    `${bonus.id},${iso(2)},bonus,5.0000,${bonus.balance_after_rub},,,,"welcome, ""friend""",`,
    `${image.id},${iso(1)},charge,-0.9900,${image.balance_after_rub},sim/image,${keyB},key B,${image.description ?? ''},${image.request_id}`,
    `${chatB.id},${iso(1)},charge,${chatB.amount_rub},${chatB.balance_after_rub},sim/chat,${keyB},key B,${chatB.description ?? ''},${chatB.request_id}`,
    `${chatA.id},${iso(0)},charge,${chatA.amount_rub},${chatA.balance_after_rub},sim/chat,${chatA.key_id},key A,${chatA.description ?? ''},${chatA.request_id}`,
    `${topup.id},${iso(0)},topup,100.0000,100.0000,,,,,`,
  ];
  t.is(await response.text(), expected.map((line) => `${line}\r\n`).join(''));
  // Filters apply to the export as to the pages.
  const filtered = await (await fetch(`${gateway.url}/cabinet/api/history?format=csv&key=${keyB}&model=sim/image`, { headers: { cookie: login.cookie } })).text();
  t.is(filtered, `${expected[0]}\r\n${expected[2]}\r\n`);
  const none = await (await fetch(`${gateway.url}/cabinet/api/history?format=csv&kind=refund`, { headers: { cookie: login.cookie } })).text();
  t.is(none, `${expected[0]}\r\n`);
});

testOnBackends('history CSV of more rows than one read: streamed in pages (chunked, no Content-Length), every row once', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { accountId } = await gateway.newClient();
  const rows = 1_001; // two full reads of 500 and one of a single row
  await gateway.services.db.transaction(async (trx) => {
    for (let i = 1; i <= rows; i++) await gateway.services.ledger.credit(accountId, BigInt(i), 'topup', { description: `#${i}`, within: trx });
  });
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  const response = await fetch(`${gateway.url}/cabinet/api/history?format=csv`, { headers: { cookie: login.cookie } });
  t.is(response.status, 200);
  t.is(response.headers.get('content-length'), null);
  t.is(response.headers.get('transfer-encoding'), 'chunked');
  const lines = (await response.text()).split('\r\n');
  t.is(lines.pop(), '', 'the file ends with CRLF');
  t.is(lines.length, rows + 1);
  t.deepEqual(
    lines.slice(1).map((line) => line.split(',')[8]),
    Array.from({ length: rows }, (_, i) => `#${rows - i}`),
  );
  // Balance after the last row: 1 + 2 + … + 1001 units.
  t.is(lines[1]!.split(',')[4], '50.1501');
});
