import { Ledger } from '../../src/billing/ledger.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

testOnBackends('history: newest first, exact decimal strings, charges negative with their model', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_005_000n });
  const ledger: Ledger = gateway.services.ledger;
  const hold = await ledger.hold(accountId, 500n, { ttlMs: 60_000, model: 'sim/chat', requestId: 'req_abc', description: 'chat completion' });
  await ledger.settle(hold.id, 135n);
  const response = await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } });
  t.is(response.status, 200);
  const page = (await response.json()) as any;
  t.is(page.object, 'list');
  t.is(page.next_cursor, null);
  t.false(page.has_more);
  t.is(page.data.length, 2);
  const [charge, topup] = page.data;
  t.like(charge, { kind: 'charge', amount_rub: '-0.0135', balance_after_rub: '100.4865', model: 'sim/chat', description: 'chat completion', request_id: 'req_abc' });
  t.like(topup, { kind: 'topup', amount_rub: '100.5000', balance_after_rub: '100.5000', model: null });
  t.regex(charge.id, /^txn_\d+$/);
  t.is(typeof charge.created_at, 'number');
});

testOnBackends('history pages never overlap or skip, even while new rows arrive; other accounts are invisible', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { key, accountId } = await gateway.newClient();
  const other = await gateway.newClient({ balanceUnits: 77n });
  for (let i = 1; i <= 25; i++) await gateway.services.ledger.credit(accountId, BigInt(i), 'topup', { description: `#${i}` });
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = cursor ? `?limit=10&cursor=${cursor}` : '?limit=10';
    const page = (await (await fetch(`${gateway.url}/v1/history${query}`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
    seen.push(...page.data.map((item: any) => item.description));
    cursor = page.next_cursor;
    pages++;
    // Rows inserted while paging are newer than every cursor: they never show up in later pages.
    await gateway.services.ledger.credit(accountId, 1_000n, 'bonus', { description: `late-${pages}` });
  } while (cursor);
  t.is(pages, 3);
  t.deepEqual(seen, Array.from({ length: 25 }, (_, i) => `#${25 - i}`));
  const otherPage = (await (await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${other.key}` } })).json()) as any;
  t.is(otherPage.data.length, 1);
  t.is(otherPage.data[0].amount_rub, '0.0077');
});

testOnBackends('history validates limit and cursor with a 422 detail', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { key } = await gateway.newClient();
  const get = (query: string) => fetch(`${gateway.url}/v1/history${query}`, { headers: { authorization: `Bearer ${key}` } });
  const tooMany = await get('?limit=201');
  t.is(tooMany.status, 422);
  const body = (await tooMany.json()) as any;
  t.deepEqual(body.detail[0].loc, ['query', 'limit']);
  t.is(body.detail[0].type, 'less_than_equal');
  t.deepEqual(body.detail[0].ctx, { le: 200 });
  t.is(body.error.param, 'limit');
  t.is(body.error.code, 'validation_error');
  t.regex(body.error.message, /query\.limit: Input should be less than or equal to 200/);
  t.is(((await (await get('?limit=0')).json()) as any).detail[0].type, 'greater_than_equal');
  t.is((await get('?limit=abc')).status, 422);
  const badCursor = (await (await get('?cursor=bm9wZQ')).json()) as any;
  t.deepEqual(badCursor.detail[0].loc, ['query', 'cursor']);
  t.is((await get('?limit=200&unknown=1')).status, 200, 'unknown parameters are ignored');
});
