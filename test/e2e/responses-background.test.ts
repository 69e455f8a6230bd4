// Issue 34 item 4: Responses `background: true` runs as a job, held when created, pollable with
// GET /v1/responses/{id}, cancellable with POST /v1/responses/{id}/cancel, charged exactly for
// its usage once, released when it fails or is cancelled. Through the official OpenAI SDK.
import OpenAI from 'openai';
import { testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { startGateway } from '../helpers/gateway.js';
import { assertJobMoneySettled, charges, fastJobsConfig, startJobGateway } from '../helpers/jobs.js';

/** sim/chat's prices in the example catalog, in units of 0.0001 RUB per 1M tokens: 13.50, 1.35, 54.00 RUB. */
function simChatCharge(usage: { input_tokens: number; input_tokens_details: { cached_tokens: number }; output_tokens: number }): bigint {
  const cached = BigInt(usage.input_tokens_details.cached_tokens);
  const numerator = (BigInt(usage.input_tokens) - cached) * 135_000n + cached * 13_500n + BigInt(usage.output_tokens) * 540_000n;
  return (numerator + 999_999n) / 1_000_000n;
}

async function finished(openai: OpenAI, id: string): Promise<OpenAI.Responses.Response> {
  return eventually(
    async () => {
      const response = await openai.responses.retrieve(id);
      return response.status === 'queued' || response.status === 'in_progress' ? undefined : response;
    },
    { what: `background response ${id} ends`, intervalMs: 50 },
  );
}

testOnBackends('a background response is queued with a hold, runs as a job, and is charged exactly once for its usage', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });

  const created = await openai.responses.create({ model: 'sim/chat', input: 'Tell me about background jobs', instructions: 'Be brief.', metadata: { ticket: 'T-1' }, background: true });
  t.regex(created.id, /^resp_/);
  t.is(created.status, 'queued');
  t.is(created.background, true);
  t.deepEqual(created.output, []);
  t.is(created.instructions, 'Be brief.');
  t.deepEqual(created.metadata, { ticket: 'T-1' });

  const done = await finished(openai, created.id);
  t.is(done.status, 'completed');
  t.is(done.id, created.id);
  t.is(done.background, true);
  t.regex(done.output_text, /^Simulated answer to "Tell me about background jobs"/);
  t.deepEqual(done.metadata, { ticket: 'T-1' });
  const usage = done.usage!;
  t.true(usage.input_tokens > 0 && usage.output_tokens > 0);
  t.deepEqual(await charges(database, accountId), [simChatCharge(usage)]);
  // Read again, it is the same answer: kept, not run again.
  t.deepEqual(await openai.responses.retrieve(created.id), done);
  t.deepEqual(await charges(database, accountId), [simChatCharge(usage)]);
  const record = await database.db('usage_records').where({ account_id: accountId }).first();
  t.like(record, { endpoint: 'responses', model: 'sim/chat', input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, status: 'completed' });
  await assertJobMoneySettled(t, database, accountId);

  // Another account's key does not see it.
  const stranger = await gateway.newClient({ balanceUnits: 1_000_000n });
  const strangerClient = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: stranger.key, maxRetries: 0 });
  const hidden = (await t.throwsAsync(strangerClient.responses.retrieve(created.id))) as any;
  t.is(hidden.status, 404);
});

testOnBackends('a background response cancelled while it runs charges nothing and releases its hold; cancelling again answers the same', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  // The upstream's pacing: its first byte comes after 30 s, so the response is still running when cancelled.
  const created = await openai.responses.create({ model: 'sim/chat', input: 'slow one [[sim:ttfb=30000]]', background: true });
  await eventually(async () => (await openai.responses.retrieve(created.id)).status === 'in_progress', { what: 'the response runs', intervalMs: 20 });
  const held = await gateway.services.ledger.balance(accountId);
  t.true(held.heldUnits > 0n, 'the job holds its worst case while it runs');

  const cancelled = await openai.responses.cancel(created.id);
  t.is(cancelled.status, 'cancelled');
  t.is(cancelled.id, created.id);
  t.is((await openai.responses.cancel(created.id)).status, 'cancelled');
  t.is((await openai.responses.retrieve(created.id)).status, 'cancelled');
  t.deepEqual(await charges(database, accountId), []);
  const balance = await gateway.services.ledger.balance(accountId);
  t.is(balance.balanceUnits, 10_000_000n);
  t.is(balance.heldUnits, 0n);
  await assertJobMoneySettled(t, database, accountId);
});

testOnBackends('background responses: a failed upstream releases the hold; stream with background, and a completed one cancelled, are refused', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });

  const failing = await openai.responses.create({ model: 'sim/chat', input: 'refused [[sim:status=400]]', background: true });
  const failed = await finished(openai, failing.id);
  t.is(failed.status, 'failed');
  t.is(failed.error?.code, 'upstream_error' as never);
  t.regex(failed.error!.message, /nothing was charged$/);
  t.deepEqual(await charges(database, accountId), []);

  const streamed = (await t.throwsAsync(openai.responses.create({ model: 'sim/chat', input: 'hi', background: true, stream: true }))) as any;
  t.is(streamed.status, 422);
  t.is(streamed.error.param, 'stream');

  const quick = await openai.responses.create({ model: 'sim/chat', input: 'hi', background: true });
  t.is((await finished(openai, quick.id)).status, 'completed');
  const late = (await t.throwsAsync(openai.responses.cancel(quick.id))) as any;
  t.is(late.status, 409);
  t.is((await openai.responses.retrieve(quick.id)).status, 'completed');
  t.is((await charges(database, accountId)).length, 1);

  const unknown = (await t.throwsAsync(openai.responses.retrieve('resp_unknown'))) as any;
  t.is(unknown.status, 404);
  await assertJobMoneySettled(t, database, accountId);
});

testOnBackends('a background response the balance cannot hold is refused with 402 when created, and no job is left', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 10n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const refused = (await t.throwsAsync(openai.responses.create({ model: 'sim/chat', input: 'hi', max_output_tokens: 4000, background: true }))) as any;
  t.is(refused.status, 402);
  t.is(Number((await database.db('jobs').where({ account_id: accountId }).count({ n: '*' }).first())?.n), 0);
  await assertJobMoneySettled(t, database, accountId);
});

testOnBackends('a background response reports its creation time as created_at: queued, while it runs, and completed', async (t, database) => {
  // The gateway's clock a day behind the wall clock: a created_at taken from anything but the job's creation shows.
  const clock = testClock({ running: true, start: Date.now() - 86_400_000 });
  const gateway = await startGateway(t, database, { raw: fastJobsConfig(), jobRunner: true, now: clock.now });
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const created = await openai.responses.create({ model: 'sim/chat', input: 'when was I made?', background: true });
  const job = await database.db('jobs').where({ id: created.id }).first();
  const createdAt = Math.floor(Number(job.created_at) / 1000);
  t.true(createdAt < Date.now() / 1000 - 86_000, 'by the gateway\'s clock, a day behind');
  t.is(created.created_at, createdAt, 'the job\'s creation, by the gateway\'s clock');
  clock.advance(60_000);
  const done = await finished(openai, created.id);
  t.is(done.status, 'completed');
  t.is(done.created_at, created.created_at, 'the completed object keeps the creation time, not the run\'s');
  t.is((await openai.responses.retrieve(created.id)).created_at, created.created_at);
});
