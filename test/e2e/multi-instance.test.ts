// Several machines' shape on one (issue 16, item 5): two `gateway serve` processes (A, B) and two
// `gateway worker`s, one PostgreSQL database, one Redis, one S3-compatible store (s3rver) and
// one upstream simulator, each instance with its own data directory and its own machine name
// (GATEWAY_INSTANCE_HOSTNAME), as on separate hosts. What one machine's disk cannot share must
// still work: a file made through A is served by B with Range; jobs whose input was uploaded
// through A complete on B's worker while A's worker is SIGKILLed mid-submit, each ending once
// with one charge; the rate limit and a revocation hold across instances. And the mistake the
// S3 store fixes cannot happen silently: an instance keeping files on its own disk is refused
// beside instances of other machines (src/storage/shared-storage.ts), whichever starts second.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { execa } from 'execa';
import { stringify } from 'yaml';
import { ApiKeys } from '../../src/auth/api-keys.js';
import { patternPng } from '../../src/sim/media/png.js';
import { countRun, createTestDatabase, needing, redisUrl, type TestDatabase } from '../helpers/backends.js';
import { cliEnv, gatewayBin, runCliJson } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { fastJobsConfig } from '../helpers/job-config.js';
import { api, assertJobMoneySettled } from '../helpers/jobs.js';
import { createClient, processEnv, type RunningProcess, startProcess, startSimulatorProcess } from '../helpers/processes.js';
import { startS3Server } from '../helpers/s3-server.js';

const fix = 'set storage.blobs.kind: s3 (one object store for all), or storage.blobs.shared: true where storage.dir is one volume mounted on every machine';

/** A config file: the fast job runner, `blobs` as storage.blobs, the simulator process as the `sim` provider when given. */
function writeConfig(blobs: Record<string, unknown>, simulatorUrl?: string): string {
  // Leases of 2 s: the killed worker's jobs are taken over soon after the kill.
  const raw = fastJobsConfig({ jobs: { tick: '50ms', lease: '2s', deadline: '5m', concurrency: 16 }, storage: { blobs } });
  if (simulatorUrl) raw.providers = { ...raw.providers, sim: { kind: 'sim', base_url: simulatorUrl } };
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gw-multi-')), 'gateway.yaml');
  writeFileSync(file, stringify(raw));
  return file;
}

/** One machine's environment: its own data directory and name. */
function machineEnv(config: string, database: TestDatabase, hostname: string, extra: Record<string, string> = {}): Record<string, string> {
  return processEnv(config, database, { GATEWAY_DATA_DIR: mkdtempSync(path.join(tmpdir(), `gw-${hostname}-`)), GATEWAY_INSTANCE_HOSTNAME: hostname, ...extra });
}

/** Runs a command expected to exit by itself (a refused start); a bound so that a start that is not refused fails the test instead of hanging it. */
async function runRefused(args: string[], env: Record<string, string>): Promise<{ exitCode: number | undefined; stderr: string }> {
  const result = await execa(gatewayBin, args, { env, reject: false, extendEnv: true, timeout: 60_000 });
  return { exitCode: result.exitCode, stderr: String(result.stderr) };
}

async function stopAll(t: ExecutionContext, processes: RunningProcess[]): Promise<void> {
  t.teardown(() => Promise.all(processes.map((running) => running.stop())));
}

/** The JSON log lines of a process (its stderr with --json). */
function logLines(running: RunningProcess): Record<string, any>[] {
  return running
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, any>];
      } catch {
        return []; // two streams interleaved into one line
      }
    });
}

const multiTest = needing('postgres', 'redis');

multiTest('two serve and two worker processes of two machines on S3: files, Range, jobs across machines and a worker killed mid-job, rate limit, revocation, local storage refused', async (t) => {
  // ~1 min alone on 2 idle cores; 2-3 min beside other process suites.
  t.timeout(300_000);
  const started = Date.now();
  const phase = (name: string) => t.log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const database = await createTestDatabase('postgres');
  t.teardown(() => database.drop());
  const s3 = await startS3Server(t);
  const simulator = await startSimulatorProcess(t);
  const config = writeConfig(s3.blobsConfig, simulator.url);
  const common = { GATEWAY_CACHE_URL: redisUrl!, ...s3.env };
  const envA = machineEnv(config, database, 'host-a', common);
  const envB = machineEnv(config, database, 'host-b', common);
  // One at a time: each start migrates (a no-op here) and registers.
  const serveA = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], envA);
  const serveB = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], envB);
  // Workers log at info: their 'job completed' lines name the runner.
  const workerB = await startProcess(['worker'], { ...machineEnv(config, database, 'host-b', common), GATEWAY_LOG_LEVEL: 'info' });
  const workerA = await startProcess(['worker'], { ...machineEnv(config, database, 'host-a', common), GATEWAY_LOG_LEVEL: 'info' });
  await stopAll(t, [serveA, serveB, workerB]);
  t.teardown(() => workerA.kill());
  t.regex(workerB.announced.runner!, /^host-b:/, 'runners are named by their machine');
  phase('four processes started');
  const client = await createClient(database, 100_000_000n);

  // A file made through A, served by B: whole, and a Range of it (206, exactly those bytes).
  const image = await api(serveA, client.key, 'POST', '/v1/images/generations', { model: 'sim/image', prompt: 'a lighthouse', size: '1024x1024', quality: 'low' });
  t.is(image.status, 200, JSON.stringify(image.body));
  const imageFile = await database.db('files').where({ account_id: client.accountId, purpose: 'image' }).first();
  const auth = { authorization: `Bearer ${client.key}` };
  const whole = Buffer.from(await (await fetch(`${serveB.url}/v1/files/${imageFile.id}/content`, { headers: auth })).arrayBuffer());
  t.is(whole.length, Number(imageFile.bytes));
  t.is(createHash('sha256').update(whole).digest('hex'), imageFile.sha256);
  const ranged = await fetch(`${serveB.url}/v1/files/${imageFile.id}/content`, { headers: { ...auth, range: 'bytes=100-299' } });
  t.is(ranged.status, 206);
  t.is(ranged.headers.get('content-range'), `bytes 100-299/${whole.length}`);
  t.deepEqual(Buffer.from(await ranged.arrayBuffer()), whole.subarray(100, 300));

  // Jobs whose reference image is uploaded through A (and B). Worker B is paused (SIGSTOP) while
  // they are submitted, so worker A claims every one; the simulator holds each submit's answer
  // 3 s, and A is SIGKILLed while it waits: every job is then leased by a dead runner, mid-submit.
  const reference = `data:image/png;base64,${patternPng(64, 36, 'reference').toString('base64')}`;
  workerB.child.kill('SIGSTOP');
  let resumed = false;
  t.teardown(() => void (resumed || workerB.child.kill('SIGCONT')));
  const created: string[] = [];
  for (let index = 0; index < 4; index++) {
    const through = index % 2 === 0 ? serveA : serveB;
    const answer = await api(through, client.key, 'POST', '/v1/videos', {
      model: 'sim/video',
      prompt: `clip ${index} [[sim:job-seconds=1]] [[sim:submit-delay=3000]]`,
      seconds: 4,
      input_reference: reference,
    });
    t.is(answer.status, 200, JSON.stringify(answer.body));
    created.push(answer.body.id as string);
  }
  await eventually(
    async () => {
      const leased = await database.db('jobs').whereIn('id', created).andWhere('submit_state', 'submitting').andWhereLike('lease_owner', 'host-a:%').count({ n: '*' }).first();
      return Number(leased?.n) === created.length;
    },
    { what: 'worker A is submitting every job', intervalMs: 20 },
  );
  phase('worker A holds every job');
  await workerA.kill();
  workerB.child.kill('SIGCONT');
  resumed = true;
  // B takes each over once its lease runs out, reads its reference from the store and completes it.
  await eventually(async () => Number((await database.db('jobs').whereIn('id', created).whereIn('status', ['queued', 'in_progress']).count({ n: '*' }).first())?.n) === 0, {
    what: 'every job ended',
    intervalMs: 100,
    deadlineMs: 90_000,
  });
  phase('every job ended');
  const jobs = await database.db('jobs').whereIn('id', created);
  t.deepEqual(jobs.map((job: any) => job.status), ['completed', 'completed', 'completed', 'completed']);
  // The log line follows the commit: waited for.
  const completedBy = await eventually(
    () => {
      const lines = new Map(logLines(workerB).filter((line) => line.msg === 'job completed').map((line) => [line.job_id as string, line.runner as string]));
      return lines.size === created.length ? lines : undefined;
    },
    { what: "worker B's 'job completed' line for every job", intervalMs: 50 },
  );
  t.deepEqual(created.map((id) => completedBy.get(id)), created.map(() => workerB.announced.runner), 'worker B completed every job');
  t.deepEqual(logLines(workerA).filter((line) => line.msg === 'job completed'), [], 'worker A completed none');
  for (const job of jobs) {
    const charges = await database.db('ledger_transactions').where({ hold_id: job.hold_id, kind: 'charge' });
    t.is(charges.length, 1, `${job.id}: charged once`);
    t.is(BigInt(charges[0].amount_units), -BigInt(job.charged_units));
    t.is(JSON.parse(job.result).fileIds.length, 1, `${job.id}: one result file`);
  }
  const referenceFiles = await database.db('files').where({ account_id: client.accountId, purpose: 'upload' });
  t.is(referenceFiles.length, 4, 'each reference stored once, through A or B');
  t.is(new Set(jobs.map((job: any) => job.upstream_id)).size, 4, 'one upstream job each: the resubmits after the kill made none');
  t.is((await database.db('files').where({ account_id: client.accountId, purpose: 'video' })).length, 4, 'one result per job');
  const totalCharges = await database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' }).count({ n: '*' }).first();
  t.is(Number(totalCharges?.n), 5, 'the image and the four videos, nothing more');
  await assertJobMoneySettled(t, database, client.accountId);
  // A video made on B's worker is served by A, with Range.
  const video = await fetch(`${serveA.url}/v1/videos/${created[0]}/content`, { headers: { ...auth, range: 'bytes=0-9' } });
  t.is(video.status, 206);
  t.is((await video.arrayBuffer()).byteLength, 10);
  // No instance kept a byte on its own disk: everything is in the object store.
  for (const env of [envA, envB]) t.deepEqual(readdirSync(env.GATEWAY_DATA_DIR!).filter((name) => name === 'files'), []);

  // The rate limit is one allowance across A and B: 3 per minute admits 3 of 10.
  const { key: limited } = await new ApiKeys(database.db, 'gw').create({ accountId: client.accountId, rpm: 3 });
  const statuses = await Promise.all(
    Array.from({ length: 10 }, (_, index) => fetch(`${(index % 2 === 0 ? serveA : serveB).url}/v1/history?limit=1`, { headers: { authorization: `Bearer ${limited}` } }).then(async (response) => (await response.arrayBuffer(), response.status))),
  );
  t.deepEqual([statuses.filter((status) => status === 200).length, statuses.filter((status) => status === 429).length], [3, 7]);

  // A key both processes have cached, revoked by the CLI: the next request on each is 401.
  const { apiKey: revokedKey, key: revoked } = await new ApiKeys(database.db, 'gw').create({ accountId: client.accountId });
  const chat = { model: 'sim/chat', messages: [{ role: 'user', content: 'hi' }] };
  for (const serve of [serveA, serveB]) t.is((await api(serve, revoked, 'POST', '/v1/chat/completions', chat)).status, 200);
  await runCliJson(['keys', 'revoke', revokedKey.id], cliEnv(database));
  for (const serve of [serveA, serveB]) t.is((await api(serve, revoked, 'POST', '/v1/chat/completions', chat)).status, 401);

  phase('rate limit and revocation checked');
  // A third machine keeping files on its own disk is refused beside A and B; told the directory is shared, it starts (warning that stores differ).
  const envC = machineEnv(writeConfig({ kind: 'local' }, simulator.url), database, 'host-c', common);
  const refused = await runRefused(['serve', '--host', '127.0.0.1', '--port', '0'], envC);
  t.is(refused.stderr, `error: refusing to start: this instance (host host-c) keeps files in its own directory ${path.join(envC.GATEWAY_DATA_DIR!, 'files')} (storage.blobs.kind: local), but instances on other machines use this database (host-a, host-b), which could not read them; ${fix}`);
  t.is(refused.exitCode, 1);
  const sharedC = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0'], { ...envC, GATEWAY_CONFIG: writeConfig({ kind: 'local', shared: true }, simulator.url) });
  t.is((await fetch(`${sharedC.url}/healthz`)).status, 200);
  await sharedC.stop();
  t.true(logLines(sharedC).some((line) => line.msg.startsWith('running instances keep files in different stores')), 'the shared directory beside S3 is warned about');
  phase('refusal checked');
  countRun('postgres');
});

needing('postgres')('an instance keeping files on its own disk runs first: serve and worker of another machine are refused, even on a shared directory, until it stops', async (t) => {
  t.timeout(240_000);
  const database = await createTestDatabase('postgres');
  t.teardown(() => database.drop());
  const envX = machineEnv(writeConfig({ kind: 'local' }), database, 'host-x');
  const first = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0'], envX);
  t.teardown(() => first.stop());
  const envY = machineEnv(writeConfig({ kind: 'local', shared: true }), database, 'host-y');
  const line = `error: refusing to start: a running instance on host host-x (pid ${first.announced.pid}) keeps files in its own directory ${path.join(envX.GATEWAY_DATA_DIR!, 'files')} (storage.blobs.kind: local), which this machine (host host-y) could not read; ${fix} on every instance`;
  for (const args of [['serve', '--host', '127.0.0.1', '--port', '0'], ['worker']]) {
    const refused = await runRefused(args, envY);
    t.deepEqual([refused.stderr, refused.exitCode], [line, 1], args[0]);
  }
  // The first keeps running; the refused ones left no row.
  t.is((await fetch(`${first.url}/healthz`)).status, 200);
  t.deepEqual((await database.db('instances').select('hostname')).map((row: { hostname: string }) => row.hostname), ['host-x']);
  // Stopped (its row goes with it), it no longer stands in the way.
  await first.stop();
  const second = await startProcess(['worker'], envY);
  await second.stop();
  countRun('postgres');
});
