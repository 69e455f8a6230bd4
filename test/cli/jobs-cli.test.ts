// `gateway jobs ls|show|cancel` and `gateway worker` through the real binary, on a database an
// API-only gateway writes jobs into.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { startGateway } from '../helpers/gateway.js';
import { api, assertJobMoneySettled } from '../helpers/jobs.js';
import { processEnv, startProcess, startSimulatorProcess, writeSharedConfig } from '../helpers/processes.js';

testOnBackends('jobs CLI lists, shows and cancels (releasing the hold); gateway worker runs what an API-only gateway queued', async (t, database) => {
  t.timeout(120_000);
  const simulator = await startSimulatorProcess(t);
  // The CLI runs before the worker starts take minutes on a loaded machine: the queued music
  // job must still be inside its deadline (2 min in fastJobsConfig) when the worker comes.
  const configPath = writeSharedConfig(simulator.url, { jobs: { tick: '50ms', lease: '5s', deadline: '30m', concurrency: 16 } });
  const env = processEnv(configPath, database);
  // The API without a runner: jobs stay queued until a worker comes.
  const gateway = await startGateway(t, database, { raw: parse(readFileSync(configPath, 'utf8')), env: { GATEWAY_DATA_DIR: env.GATEWAY_DATA_DIR! } });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const first = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'to cancel', seconds: 4 });
  const second = await api(gateway, client.key, 'POST', '/v1/audio/music', { model: 'sim/song', prompt: 'to run [[sim:job-seconds=0.3]]' });
  t.is(first.status, 200);

  const listed = await runCliJson(['jobs', 'ls'], env);
  t.like(listed, { object: 'list', has_more: false });
  t.deepEqual(listed.data.map((job: any) => job.id).sort(), [first.body.id, second.body.id].sort());
  const newest = await runCliJson(['jobs', 'ls', '--limit', '1'], env);
  t.deepEqual(newest, { object: 'list', data: [listed.data[0]], has_more: true }, '--limit is honoured and has_more says a job was left out');
  const videos = await runCliJson(['jobs', 'ls', '--type', 'video', '--status', 'queued'], env);
  t.deepEqual(videos.data.map((job: any) => job.id), [first.body.id]);
  const shown = await runCliJson(['jobs', 'show', first.body.id], env);
  t.is(shown.id, first.body.id);
  t.is(shown.internal_status, 'queued');
  t.is(shown.hold_rub, '36.0000');
  t.is(shown.account_id, client.accountId);
  const cancelled = await runCliJson(['jobs', 'cancel', first.body.id], env);
  t.true(cancelled.cancelled);
  t.is(cancelled.internal_status, 'cancelled');
  // A job that had already ended: an error on stderr (one line; JSON with --json), nothing on stdout, exit 1.
  const ended = `job ${first.body.id} had already ended (cancelled); nothing changed`;
  const again = await runCli(['jobs', 'cancel', first.body.id], env);
  t.deepEqual(again, { exitCode: 1, stdout: '', stderr: `error: ${ended}` });
  const againJson = await runCli(['jobs', 'cancel', first.body.id, '--json'], env);
  t.is(againJson.exitCode, 1);
  t.is(againJson.stdout, '');
  t.deepEqual(JSON.parse(againJson.stderr), { error: { code: 'job_already_ended', message: ended } });
  const missing = await runCli(['jobs', 'show', 'video_nope'], env);
  t.is(missing.exitCode, 1);
  t.regex(missing.stderr, /no job "video_nope"/);
  const asClient = await api(gateway, client.key, 'GET', `/v1/videos/${first.body.id}`);
  t.is(asClient.body.status, 'failed');
  t.is(asClient.body.error.code, 'cancelled');

  const worker = await startProcess(['worker'], env);
  t.teardown(() => worker.stop());
  const music = await eventually(
    async () => {
      const answer = await api(gateway, client.key, 'GET', `/v1/audio/music/${second.body.id}`);
      return answer.body.status === 'completed' || answer.body.status === 'failed' ? answer : undefined;
    },
    { what: 'the music job ended', intervalMs: 100 },
  );
  t.is(music.body.status, 'completed', `the worker process ran it: ${JSON.stringify(music.body)}`);
  t.is(music.body.charged_rub, '7.2000');
  await worker.stop();
  await assertJobMoneySettled(t, database, client.accountId);
  const help = await runCli(['worker', '--help'], env);
  t.regex(help.stdout, /job runner alone/);
});
