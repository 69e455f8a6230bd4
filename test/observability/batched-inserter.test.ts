import test from 'ava';
import { pino } from 'pino';
import { Accounts } from '../../src/accounts/accounts.js';
import { BatchedInserter, requestLogColumns, usageRecordColumns, type RequestLogEntry, type UsageRecord } from '../../src/observability/batched-inserter.js';
import { testOnBackends } from '../helpers/backends.js';

const silent = pino({ level: 'silent' });

testOnBackends('batched rows go in as written, in order, over several batches: nulls, booleans, large numbers', async (t, { db }) => {
  const account = await new Accounts(db).create('logged');
  const inserter = new BatchedInserter<UsageRecord>(db, 'usage_records', usageRecordColumns, silent, { intervalMs: 10_000, batchSize: 500, maxQueued: 20_000 });
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
  log.record({ request_id: 'req_1', account_id: null, key_id: null, method: 'POST', route: '/v1/chat/completions', model: null, status: 401, duration_us: 150, charged_units: 0, created_at: 1 });
  await log.flush();
  const [row] = await db('request_log');
  t.like(row, { request_id: 'req_1', account_id: null, key_id: null, model: null, status: 401 });
  // A table that is not there: the batch is lost, counted and logged, and the inserter goes on.
  const broken = new BatchedInserter<RequestLogEntry>(db, 'no_such_table', requestLogColumns, silent);
  broken.record({ request_id: 'req_2', account_id: null, key_id: null, method: 'GET', route: '/', model: null, status: 200, duration_us: 1, charged_units: 0, created_at: 2 });
  await broken.flush();
  t.is(broken.dropped, 1);
});
