// A job is polled at its backoff for its whole life, on both databases. Issue 13 item 3: the
// backoff 250·1.6ⁿ is fractional from the third poll, PostgreSQL refused it for the bigint
// next_run_at (22P02), the retry wrote the same value, and the job was looked at again only
// once per lease: its progress froze and it finished a lease late. The simulator counts the
// polls it answered, so "every poll's outcome was stored" is checked exactly, without timing.
import { testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { capturedLogger, startGateway } from '../helpers/gateway.js';
import { api, assertJobMoneySettled, fastJobsConfig } from '../helpers/jobs.js';
import { backoffMs } from '../../src/pipeline/job-context.js';
import test from 'ava';

test('the poll backoff is whole milliseconds at every attempt', (t) => {
  const values = Array.from({ length: 30 }, (_, attempt) => backoffMs(attempt));
  t.deepEqual(values.slice(0, 9), [250, 400, 640, 1024, 1638, 2621, 4194, 6711, 10_000]);
  t.true(values.every(Number.isSafeInteger));
});

/** GETs the job every 50 ms until it ends; returns every progress value seen and the final object. */
async function watchJob(gateway: { url: string }, key: string, path: string): Promise<{ progress: number[]; final: any }> {
  const progress: number[] = [];
  const final = await eventually(
    async () => {
      const { body } = await api(gateway, key, 'GET', path);
      progress.push(body.progress);
      return body.status === 'completed' || body.status === 'failed' ? body : undefined;
    },
    { what: `GET ${path} shows a finished job`, intervalMs: 50 },
  );
  return { progress, final };
}

testOnBackends('a 6 s video is polled at its backoff to the end: every poll stored, progress moving, completed', async (t, database) => {
  t.timeout(120_000);
  const { logger, lines } = capturedLogger('warn');
  const gateway = await startGateway(t, database, { raw: fastJobsConfig(), jobRunner: true, logger });
  const client = await gateway.newClient({ balanceUnits: 100_000_000n });
  // 6 s upstream: polls at ≈0.25, 0.65, 1.29, 2.31, 3.95 s (running) and ≈6.6 s (done).
  const created = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'a long take [[sim:job-seconds=6]]', seconds: 4 });
  t.is(created.status, 200, JSON.stringify(created.body));
  const { progress, final } = await watchJob(gateway, client.key, `/v1/videos/${created.body.id}`);
  t.is(final.status, 'completed', JSON.stringify(final));
  t.is(final.progress, 100);

  const row = await database.db('jobs').where({ id: created.body.id }).first();
  const simulatorUrl = gateway.services.upstreams.get('sim')!.baseUrl;
  const upstream = (await (await fetch(`${simulatorUrl}/__sim/stats?job=${encodeURIComponent(row.upstream_id)}`)).json()) as { polls: number; submits: number };
  t.is(upstream.submits, 1, 'sent upstream once');
  // Every poll that found the job still running stored its outcome (polls + 1); the last one
  // found it completed and ended it. Before the fix the third poll's outcome was refused on
  // PostgreSQL and the job was next polled a lease (5 s) later: 4 polls answered, 2 stored.
  t.true(upstream.polls >= 5, `the simulator answered ${upstream.polls} polls`);
  t.is(Number(row.polls), upstream.polls - 1, 'every running poll was stored');
  t.true(Number.isSafeInteger(Number(row.next_run_at)));

  // Progress as the client saw it: never backwards, and moving across polls before the end.
  t.deepEqual(progress, [...progress].sort((a, b) => a - b), `progress never goes back: ${progress.join(',')}`);
  const running = new Set(progress.filter((value) => value > 0 && value < 100));
  t.true(running.size >= 3, `progress moved across polls: ${[...running].join(', ')}`);
  t.deepEqual(
    lines.filter((line) => line.level >= 50),
    [],
    'no step failed',
  );
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('a job step whose outcome cannot be stored is logged at error with the job id, and the job still completes', async (t, database) => {
  t.timeout(120_000);
  const { logger, lines } = capturedLogger('warn');
  // Lease of 1 s: the job whose retry could not be stored waits for its lease, as it must.
  const gateway = await startGateway(t, database, { raw: fastJobsConfig({ jobs: { tick: '50ms', lease: '1s', deadline: '2m', concurrency: 16 } }), jobRunner: true, logger });
  const client = await gateway.newClient({ balanceUnits: 100_000_000n });
  // The store refuses the first two writes after a poll, as PostgreSQL refused the fractional
  // next_run_at: the step's own write and the retry's write both fail.
  const store = gateway.services.jobs;
  const reschedule = store.reschedule.bind(store);
  let refusals = 0;
  store.reschedule = async (job, owner, patch) => {
    if (patch.polled && job.upstreamId !== null && refusals < 2) {
      refusals++;
      throw new Error('invalid input syntax for type bigint: "1764000000000.0002" (simulated 22P02)');
    }
    return reschedule(job, owner, patch);
  };
  const created = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'refused once [[sim:job-seconds=2]]', seconds: 4 });
  const { final } = await watchJob(gateway, client.key, `/v1/videos/${created.body.id}`);
  t.is(final.status, 'completed', JSON.stringify(final));
  t.is(refusals, 2);
  const errors = lines.filter((line) => line.level === 50);
  t.deepEqual(
    errors.map((line) => [line.msg, line.job_id]),
    [
      ['job step failed; retrying later', created.body.id],
      ['job retry could not be stored; the job waits until its lease runs out', created.body.id],
    ],
  );
  t.regex(errors[0]!.err.message, /22P02/);
  t.is(errors[0]!.retry_in_ms, 250, 'the retry waits the backoff of the job (its first poll), whole milliseconds');
  await assertJobMoneySettled(t, database, client.accountId);
});
