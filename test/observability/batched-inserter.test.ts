import test from 'ava';
import { pino } from 'pino';
import { Accounts } from '../../src/accounts/accounts.js';
import { usageRecordColumns, usageRecordDefaults, type UsageRecord } from '../../src/billing/usage-record.js';
import { BatchedInserter, requestLogColumns, type RequestLogEntry } from '../../src/observability/batched-inserter.js';
import { testOnBackends } from '../helpers/backends.js';

const silent = pino({ level: 'silent' });

testOnBackends('batched rows go in as written, in order, over several batches: nulls, booleans, large numbers', async (t, { db }) => {
  const account = await new Accounts(db).create('logged');
  const inserter = new BatchedInserter<UsageRecord>(db, 'usage_records', usageRecordColumns, silent, { intervalMs: 10_000, batchSize: 500, maxQueued: 20_000, defaults: usageRecordDefaults });
  const records: UsageRecord[] = Array.from({ length: 1_201 }, (_, index) => ({
    request_id: `req_${String(index).padStart(5, '0')}`,
    account_id: account.id,
    key_id: 'key_x',
    endpoint: 'chat-completions',
    model: index % 2 ? 'sim/chat' : 'a "quoted", \\ model ₽',
    provider: 'sim',
    upstream_model: 'chat',
    status: index % 3 === 0 ? 'aborted' : 'completed',
    input_tokens: index,
    cached_input_tokens: 0,
    cache_write_input_tokens: 7,
    output_tokens: 2 ** 31 - 1,
    reasoning_tokens: 0,
    cost_units: 9_007_199_254_740_991 - index, // the largest exact integer of a JS number
    estimated: index % 2 === 0,
    latency_ms: 12,
    ttft_ms: index % 5 === 0 ? null : 3,
    finish_reason: index % 7 === 0 ? null : 'stop',
    created_at: 1_795_000_000_000 + index,
  }));
  for (const record of records) inserter.record(record);
  await inserter.flush();
  const rows = await db('usage_records').orderBy('id');
  t.is(rows.length, records.length);
  t.is(inserter.dropped, 0);
  rows.forEach((row, index) => {
    const expected = records[index]!;
    t.is(row.request_id, expected.request_id);
    t.is(row.model, expected.model);
    t.is(row.status, expected.status);
    t.is(Number(row.cost_units), expected.cost_units);
    t.is(Boolean(row.estimated), expected.estimated);
    t.is(row.ttft_ms === null ? null : Number(row.ttft_ms), expected.ttft_ms);
    t.is(row.finish_reason, expected.finish_reason);
    t.is(Number(row.created_at), expected.created_at);
    t.is(Number(row.output_tokens), expected.output_tokens);
  });
});

testOnBackends('request log rows with no account or key (a refused request) are written too; a failed batch is counted as dropped', async (t, { db }) => {
  const log = new BatchedInserter<RequestLogEntry>(db, 'request_log', requestLogColumns, silent);
  log.record({ request_id: 'req_1', account_id: null, key_id: null, method: 'POST', route: '/v1/chat/completions', model: null, status: 401, duration_us: 150, charged_units: 0, created_at: 1, provider: null, error_code: 'invalid_api_key', error_message: 'Missing API key', upstream_status: null, source: 'api' });
  await log.flush();
  const [row] = await db('request_log');
  t.like(row, { request_id: 'req_1', account_id: null, key_id: null, model: null, status: 401, error_code: 'invalid_api_key', error_message: 'Missing API key', upstream_status: null, provider: null });
  // A table that is not there: not an outage, so the batch is tried a few times, then dropped,
  // counted and logged, and the inserter goes on.
  const dropped: number[] = [];
  const broken = new BatchedInserter<RequestLogEntry>(db, 'no_such_table', requestLogColumns, silent, {
    intervalMs: 10,
    batchSize: 500,
    maxQueued: 100,
    retryBaseMs: 1,
    maxAttempts: 3,
    onDropped: (count) => dropped.push(count),
  });
  broken.record({ request_id: 'req_2', account_id: null, key_id: null, method: 'GET', route: '/', model: null, status: 200, duration_us: 1, charged_units: 0, created_at: 2, provider: null, error_code: null, error_message: null, upstream_status: null, source: 'api' });
  t.is(await broken.close(10_000), 0, 'nothing was left for the stop: the batch was dropped after its attempts');
  t.is(broken.dropped, 1);
  t.deepEqual(dropped, [1]);
});

/** A fake clock whose timers run when the test advances it. */
function fakeTimers() {
  let now = 0;
  const pending: { at: number; callback: () => void; id: number }[] = [];
  let ids = 0;
  return {
    timers: {
      now: () => now,
      setTimeout(callback: () => void, ms: number) {
        const timer = { at: now + ms, callback, id: ids++ };
        pending.push(timer);
        return timer.id;
      },
      clearTimeout(handle: unknown) {
        const index = pending.findIndex((timer) => timer.id === handle);
        if (index >= 0) pending.splice(index, 1);
      },
    },
    /** The delays of the timers now pending, from now. */
    delays: () => pending.map((timer) => timer.at - now),
    /** Moves the clock to the next timer and runs it; resolves after its work settled. */
    async next() {
      pending.sort((a, b) => a.at - b.at);
      const timer = pending.shift();
      if (!timer) throw new Error('no timer pending');
      now = timer.at;
      timer.callback();
      await new Promise((resolve) => setImmediate(resolve)); // the work it started settles (fake writes: promises only)
    },
  };
}

const outage = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

test('an outage: batches are retried with backoff and land in order once the database is back; beyond the cap the oldest rows are dropped and counted', async (t) => {
  const clock = fakeTimers();
  let up = false;
  const written: number[] = [];
  let attempts = 0;
  const dropped: number[] = [];
  const inserter = new BatchedInserter<{ n: number }>(undefined as never, 'fake', ['n'], silent, {
    intervalMs: 250,
    batchSize: 4,
    maxQueued: 10,
    retryBaseMs: 250,
    retryMaxMs: 2_000,
    onDropped: (count) => dropped.push(count),
    timers: clock.timers,
    write: async (rows) => {
      attempts++;
      if (!up) throw outage();
      written.push(...rows.map((row) => row.n));
    },
  });
  for (let n = 1; n <= 3; n++) inserter.record({ n });
  t.deepEqual(clock.delays(), [250], 'the first flush waits for the interval');
  await clock.next();
  t.is(attempts, 1);
  t.is(inserter.queued, 3, 'the failed batch is back in the queue');
  // Backoff doubles up to its cap while the database stays down.
  const waits: number[] = [];
  for (let retry = 0; retry < 5; retry++) {
    waits.push(...clock.delays());
    await clock.next();
  }
  t.deepEqual(waits, [250, 500, 1_000, 2_000, 2_000]);
  t.is(attempts, 6);
  // Rows keep coming during the outage: the queue holds 10, the oldest go first.
  for (let n = 4; n <= 12; n++) inserter.record({ n });
  t.is(inserter.queued, 10);
  t.is(inserter.dropped, 2);
  t.deepEqual(dropped, [1, 1]);
  t.deepEqual(clock.delays(), [2_000], 'rows recorded during the outage do not bypass the backoff');
  up = true;
  await clock.next();
  t.deepEqual(written, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 'every kept row landed, in order, in batches of 4');
  t.is(inserter.queued, 0);
  // Back to normal: the next row waits for the interval again.
  inserter.record({ n: 13 });
  t.deepEqual(clock.delays(), [250]);
  await clock.next();
  t.deepEqual(written.slice(-1), [13]);
  t.is(inserter.dropped, 2);
});

test('a graceful stop retries until its deadline, then counts what is left as dropped', async (t) => {
  const clock = fakeTimers();
  const dropped: number[] = [];
  const inserter = new BatchedInserter<{ n: number }>(undefined as never, 'fake', ['n'], silent, {
    intervalMs: 250,
    batchSize: 500,
    maxQueued: 100,
    onDropped: (count) => dropped.push(count),
    timers: clock.timers,
    write: async () => {
      throw outage();
    },
  });
  for (let n = 1; n <= 7; n++) inserter.record({ n });
  let left: number | undefined;
  void inserter.close(3_000).then((count) => (left = count));
  await new Promise((resolve) => setImmediate(resolve));
  while (left === undefined) await clock.next();
  t.is(left, 7);
  t.is(clock.timers.now(), 3_000, 'it gave up at the deadline');
  t.is(inserter.dropped, 7);
  t.deepEqual(dropped, [7]);
});

testOnBackends('a request log batch written again (its commit landed, the answer was lost, the retry sent it once more) adds no second row', async (t, { db }) => {
  const entry = (requestId: string): RequestLogEntry => ({
    request_id: requestId,
    account_id: null,
    key_id: null,
    method: 'POST',
    route: '/v1/chat/completions',
    model: 'sim/chat',
    status: 200,
    duration_us: 1234,
    charged_units: 0,
    created_at: 1_700_000_000_000,
    provider: 'sim',
    error_code: requestId === 'req_c' ? 'upstream_error' : null,
    error_message: requestId === 'req_c' ? 'The upstream failed: overloaded' : null,
    upstream_status: requestId === 'req_c' ? '529' : null,
    source: requestId === 'req_b' ? 'cabinet' : 'api',
  });
  const first = new BatchedInserter<RequestLogEntry>(db, 'request_log', requestLogColumns, silent, { intervalMs: 10_000, batchSize: 500, maxQueued: 20_000, uniqueBy: 'request_id', defaults: usageRecordDefaults });
  first.record(entry('req_a'));
  first.record(entry('req_b'));
  await first.flush();
  // The same batch again, as the retry after a lost answer sends it, with one new row.
  first.record(entry('req_a'));
  first.record(entry('req_b'));
  first.record(entry('req_c'));
  await first.flush();
  t.deepEqual((await db('request_log').select('request_id').orderBy('id')).map((row) => row.request_id), ['req_a', 'req_b', 'req_c']);
  // The failure columns (20261126010000_request_log_failures) and the source (20261128150000_request_log_source) go through the same statement.
  t.deepEqual(
    await db('request_log').select('request_id', 'provider', 'error_code', 'error_message', 'upstream_status', 'source').orderBy('id'),
    [
      { request_id: 'req_a', provider: 'sim', error_code: null, error_message: null, upstream_status: null, source: 'api' },
      { request_id: 'req_b', provider: 'sim', error_code: null, error_message: null, upstream_status: null, source: 'cabinet' },
      { request_id: 'req_c', provider: 'sim', error_code: 'upstream_error', error_message: 'The upstream failed: overloaded', upstream_status: '529', source: 'api' },
    ],
  );
});

testOnBackends('a usage record batch written again (the retry after a lost answer) adds no second record', async (t, { db }) => {
  const record = (requestId: string): UsageRecord => ({
    request_id: requestId,
    account_id: 'acct_usage',
    key_id: 'key_usage',
    endpoint: 'chat-completions',
    model: 'sim/chat',
    provider: 'sim',
    upstream_model: 'sim-chat',
    status: 'failed',
    input_tokens: 12,
    cached_input_tokens: 0,
    cache_write_input_tokens: 0,
    output_tokens: 0,
    reasoning_tokens: 0,
    cost_units: 0,
    estimated: true,
    latency_ms: 40,
    ttft_ms: null,
    finish_reason: null,
    created_at: 1_700_000_000_000,
  });
  const inserter = new BatchedInserter<UsageRecord>(db, 'usage_records', usageRecordColumns, silent, { intervalMs: 10_000, batchSize: 500, maxQueued: 20_000, uniqueBy: 'request_id', defaults: usageRecordDefaults });
  inserter.record(record('req_u1'));
  inserter.record(record('req_u2'));
  await inserter.flush();
  inserter.record(record('req_u1'));
  inserter.record(record('req_u2'));
  inserter.record(record('req_u3'));
  await inserter.flush();
  t.deepEqual((await db('usage_records').select('request_id').orderBy('id')).map((row) => row.request_id), ['req_u1', 'req_u2', 'req_u3']);
});
