// GET /cabinet/api/overview and GET /cabinet/api/models over HTTP with a logged-in session:
// every figure equals the exact sum of charges (less refunds) placed at known times on the
// gateway's clock, by UTC day.
import { loginAs } from '../helpers/cabinet.js';
import { testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';

const dayMs = 86_400_000;
/** Noon UTC: charges placed at "today" and N days before it stay within their UTC day. */
const today = Date.UTC(2026, 10, 26, 12, 0, 0);

testOnBackends('overview: balance, held, available and spend today / 7 / 30 days, by model and by UTC day, as exact sums', async (t, database) => {
  const clock = testClock({ start: today - 40 * dayMs });
  const gateway = await startGateway(t, database, { now: clock.now });
  const { ledger, db } = gateway.services;
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const other = await gateway.newClient({ balanceUnits: 500_000n });
  let requests = 0;
  const charge = async (account: string, units: bigint, model: string) => {
    const hold = await ledger.hold(account, units + 1_000n, { ttlMs: 60_000, model, requestId: `req_overview_${requests++}` });
    await ledger.settle(hold.id, units);
    return hold.id;
  };
  await charge(accountId, 999n, 'sim/chat'); // 40 days ago: outside every window
  clock.advance(30 * dayMs);
  await charge(accountId, 77_777n, 'sim/image'); // 10 days ago
  clock.advance(7 * dayMs);
  await charge(accountId, 10_000n, 'sim/chat'); // 3 days ago
  await charge(other.accountId, 123_456n, 'sim/chat'); // another account's: never counted
  clock.advance(3 * dayMs);
  await charge(accountId, 135n, 'sim/chat'); // today
  const refunded = await charge(accountId, 250n, 'sim/image'); // today, refunded today
  await ledger.credit(accountId, 250n, 'refund', { holdId: refunded, model: 'sim/image', description: 'refund' });
  await ledger.credit(accountId, 30_000n, 'bonus'); // a credit: no spending
  // A request that charged nothing counts as a request of its model.
  await db('usage_records').insert({
    request_id: 'req_free', account_id: accountId, key_id: 'key_free', endpoint: 'chat-completions', model: 'sim/chat', provider: 'sim', upstream_model: 'chat',
    status: 'completed', input_tokens: 3, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 2, reasoning_tokens: 0, cost_units: 0,
    estimated: false, latency_ms: 5, ttft_ms: null, finish_reason: 'stop', created_at: clock.now(),
  });
  await ledger.hold(accountId, 5_000n, { ttlMs: 3_600_000, model: 'sim/chat', requestId: 'req_running' }); // a request still running

  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  const response = await fetch(`${gateway.url}/cabinet/api/overview`, { headers: { cookie: login.cookie } });
  t.is(response.status, 200);
  const overview = (await response.json()) as any;
  // 1_000_000 + 30_000 (bonus) + 250 (refund) − 999 − 77_777 − 10_000 − 135 − 250 = 941_089
  t.is(overview.balance_rub, '94.1089');
  t.is(overview.held_rub, '0.5000');
  t.is(overview.available_rub, '93.6089');
  t.deepEqual(overview.spend, { today_rub: '0.0135', days_7_rub: '1.0135', days_30_rub: '8.7912' });
  t.deepEqual(overview.by_model, [
    { model: 'sim/image', rub: '7.7777', requests: 2 },
    { model: 'sim/chat', rub: '1.0135', requests: 3 },
  ]);
  t.is(overview.by_day.length, 30);
  t.deepEqual(overview.by_day[0], { day: '2026-10-28', rub: '0.0000' });
  t.deepEqual(overview.by_day[29], { day: '2026-11-26', rub: '0.0135' });
  const spending = overview.by_day.filter((day: any) => day.rub !== '0.0000');
  t.deepEqual(spending, [
    { day: '2026-11-16', rub: '7.7777' },
    { day: '2026-11-23', rub: '1.0000' },
    { day: '2026-11-26', rub: '0.0135' },
  ]);
  t.is(overview.since, '2026-10-28T00:00:00.000Z');
  t.is(overview.until, '2026-11-27T00:00:00.000Z');

  // The last millisecond of the UTC day is still today; the next one starts a new day. (A new
  // login each time: the session's idle expiry runs on the same clock.)
  const overviewAt = async () => {
    const fresh = await loginAs(gateway.url, gateway.services, { account: accountId });
    return (await (await fetch(`${gateway.url}/cabinet/api/overview`, { headers: { cookie: fresh.cookie } })).json()) as any;
  };
  clock.advance(12 * 3_600_000 - 1);
  t.is((await overviewAt()).spend.today_rub, '0.0135');
  clock.advance(1);
  const nextDay = await overviewAt();
  t.deepEqual(nextDay.spend, { today_rub: '0.0000', days_7_rub: '1.0135', days_30_rub: '8.7912' });
  t.deepEqual(nextDay.by_day.at(-1), { day: '2026-11-27', rub: '0.0000' });
});

testOnBackends('overview and models need a session: 401 session_required without one', async (t, database) => {
  const gateway = await startGateway(t, database);
  for (const path of ['/cabinet/api/overview', '/cabinet/api/models']) {
    const response = await fetch(`${gateway.url}${path}`);
    t.is(response.status, 401, path);
    t.is(((await response.json()) as any).error.code, 'session_required', path);
  }
});

testOnBackends('models: every enabled model with its catalog price per unit in RUB and, at currency.usd_rub, in USD', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { accountId } = await gateway.newClient();
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  const response = await fetch(`${gateway.url}/cabinet/api/models`, { headers: { cookie: login.cookie } });
  t.is(response.status, 200);
  const list = (await response.json()) as any;
  t.is(list.usd_rub, '90.00');
  t.deepEqual(
    list.data.map((model: any) => model.id),
    gateway.services.catalog.enabledModels.map((model) => model.id),
  );
  const chat = list.data.find((model: any) => model.id === 'sim/chat');
  t.like(chat, { name: 'Simulator Chat', type: 'text', deprecated: false });
  t.deepEqual(chat.pricing.per_1m_input_tokens, { unit: '1M input tokens', rub: '13.50', usd: '0.15' });
  t.deepEqual(chat.pricing.per_1m_output_tokens, { unit: '1M output tokens', rub: '54.00', usd: '0.6' });
  const image = list.data.find((model: any) => model.id === 'sim/image');
  t.deepEqual(image.pricing.per_image.rub, { low: '0.99', medium: '3.78', high: '15.03', default: '3.78' });
  t.deepEqual(image.pricing.per_image.usd, { low: '0.011', medium: '0.042', high: '0.167', default: '0.042' });
});
