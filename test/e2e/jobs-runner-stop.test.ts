// A stopping runner does not wait for its job steps without end (issue 13: unclean stops end
// clean). SIGTERM gives the steps under way until server.drain_timeout; a step still running then
// (here a submit the upstream answers only after a minute) is aborted, stores nothing, and its
// job is handed back. Another runner takes it over at once — not after jobs.lease, here far
// longer than the test — reconciles the submit by its idempotency key, and the job ends once,
// sent upstream once, charged once. Before: `gateway worker` waited the whole minute.
import { countRun, testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { api, assertJobMoneySettled } from '../helpers/jobs.js';
import { createClient, processEnv, startProcess, startSimulatorProcess, twoServesEnv, writeSharedConfig } from '../helpers/processes.js';

const submitDelayMs = 60_000;

for (const runner of [{ name: 'worker', args: ['worker'] }, { name: 'serve', args: ['serve', '--host', '127.0.0.1', '--port', '0'] }]) {
  testOnBackends(`SIGTERM to a ${runner.name} mid-submit: stops its step at server.drain_timeout, exits, and another runner ends the job once`, async (t, database) => {
    t.timeout(120_000);
    const simulator = await startSimulatorProcess(t);
    const config = writeSharedConfig(simulator.url, {
      server: { drain_timeout: '1s' },
      // A lease longer than the test: the job can only move on because it was handed back.
      jobs: { tick: '50ms', lease: '10m', deadline: '30m', concurrency: 4 },
    });
    // The serve runner runs beside the API-only serve: on SQLite they share their rate limits through Redis.
    const env = processEnv(config, database, runner.name === 'serve' ? twoServesEnv(database) : {});
    const client = await createClient(database, 100_000_000n);
    const gateway = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env);
    t.teardown(() => gateway.stop());
    const created = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: `stopped mid-submit [[sim:job-seconds=0.3]] [[sim:submit-delay=${submitDelayMs}]]`, seconds: 4 });
    t.is(created.status, 200, JSON.stringify(created.body));
    const id = created.body.id as string;

    const first = await startProcess(runner.args, env);
    const stats = async () => ((await (await fetch(`${simulator.url}/__sim/stats`)).json()) as { jobs: { videos: { created: number; replayed: number } } }).jobs.videos;
    await eventually(async () => (await stats()).created === 1, { what: 'the submit reached the simulator', intervalMs: 50 });
    const stoppedAt = Date.now();
    // Sent directly: execa's own kill() follows SIGTERM with SIGKILL after 5 s, which would hide a wait.
    process.kill(Number(first.announced.pid), 'SIGTERM');
    const ended = await first.child;
    const stopMs = Date.now() - stoppedAt;
    t.deepEqual([ended.exitCode, ended.signal], [0, undefined], first.output().slice(-2000));
    // The step would have lasted a minute: the process ended after the 1 s deadline and the
    // abort, not after the step (generous bound for a loaded machine, far below the minute).
    t.log(`stopped in ${stopMs} ms`);
    t.true(stopMs < 10_000, `stopped in ${stopMs} ms`);
    t.true(first.output().includes('stop deadline reached: stopping 1 job step(s) still running'), first.output().slice(-2000));
    const handedBack = await database.db('jobs').where({ id }).first();
    t.deepEqual(
      [handedBack.status, handedBack.submit_state, handedBack.upstream_id, Number(handedBack.submits), handedBack.lease_owner, handedBack.lease_until],
      ['queued', 'submitting', null, 1, null, null],
    );

    const second = await startProcess(['worker'], env);
    t.teardown(() => second.stop());
    await eventually(async () => (await database.db('jobs').where({ id }).first()).status === 'completed', { what: 'the second runner completed the job', intervalMs: 50 });
    const counts = await stats();
    t.deepEqual([counts.created, counts.replayed], [1, 1], 'made upstream once; re-sent once with its key and answered with that job');
    const job = await database.db('jobs').where({ id }).first();
    t.deepEqual([job.submit_state, Number(job.submits), job.submit_key], ['submitted', 2, `gw-${id}`]);
    const charges = await database.db('ledger_transactions').where({ hold_id: job.hold_id, kind: 'charge' });
    t.is(charges.length, 1, 'charged once');
    t.is(BigInt(charges[0].amount_units), -BigInt(job.charged_units));
    t.is((await database.db('holds').where({ id: job.hold_id }).first()).status, 'settled');
    await assertJobMoneySettled(t, database, client.accountId);
    if (runner.name === 'serve' && database.backend === 'sqlite') countRun('redis');
  }, runner.name === 'serve' ? { sqliteNeeds: ['redis'] } : {});
}
