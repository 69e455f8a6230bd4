// Many machines' shape on one: two `gateway serve` processes on one PostgreSQL database, one
// upstream simulator. Jobs created on the API-only process are run by the other; `wait` on the
// first sees them finish; with both running jobs, no job runs twice. Jobs share nothing but the
// database (Redis carries only rate limits and the prefix cache: test/http/rate-limit-redis and
// test/pipeline/prefix-tracker test it across processes), so this test runs without Redis.
import { countRun, createTestDatabase, needing } from '../helpers/backends.js';
import { api, assertJobMoneySettled } from '../helpers/jobs.js';
import { createClient, processEnv, startProcess, startSimulatorProcess, writeSharedConfig } from '../helpers/processes.js';

const multiTest = needing('postgres');

multiTest('two serve processes on one PostgreSQL database: jobs created on one finish on the other, wait works across them, none runs twice', async (t) => {
  t.timeout(180_000);
  const database = await createTestDatabase('postgres');
  t.teardown(() => database.drop());
  const simulator = await startSimulatorProcess(t);
  const config = writeSharedConfig(simulator.url, { jobs: { tick: '50ms', lease: '5s', deadline: '5m', concurrency: 16 } });
  const env = processEnv(config, database);
  const client = await createClient(database, 100_000_000n);
  const apiOnly = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env);
  t.teardown(() => apiOnly.stop());
  const worker = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0'], env);
  t.teardown(() => worker.stop());

  // Created and awaited on the API-only process: only the other process can run them.
  const waited = await Promise.all(
    Array.from({ length: 4 }, (_, index) => api(apiOnly, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: `remote ${index} [[sim:job-seconds=0.5]]`, seconds: 4, wait: true })),
  );
  for (const answer of waited) t.is(answer.body.status, 'completed', JSON.stringify(answer.body));
  const fromWorker = await api(worker, client.key, 'GET', `/v1/videos/${waited[0]!.body.id}`);
  t.is(fromWorker.body.status, 'completed', 'the other process serves the same job');
  const content = await fetch(`${apiOnly.url}/v1/videos/${waited[0]!.body.id}/content`, { headers: { authorization: `Bearer ${client.key}` } });
  t.is(content.status, 200, 'the content is served by either process');

  // Both run jobs now: 20 jobs created on both, each run once.
  const both = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0'], env);
  t.teardown(() => both.stop());
  const created = await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      api(index % 2 === 0 ? worker : both, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: `shared ${index} [[sim:job-seconds=0.4]]`, seconds: 4, wait: true, wait_timeout: 60 }),
    ),
  );
  t.true(created.every((answer) => answer.body.status === 'completed'));
  const jobs = await database.db('jobs').where({ account_id: client.accountId });
  t.is(jobs.length, 24);
  const files = await database.db('files').where({ account_id: client.accountId, purpose: 'video' });
  t.is(files.length, 24, 'one result file per job: no job was collected twice');
  t.is(new Set(jobs.map((job: any) => job.upstream_id)).size, 24, 'one upstream job each');
  const charges = await database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' });
  t.is(charges.length, 24, 'one charge per job');
  await assertJobMoneySettled(t, database, client.accountId);
  countRun('postgres');
});
