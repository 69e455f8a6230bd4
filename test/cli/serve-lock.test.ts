// One `serve` per SQLite file unless the rate limits are shared through Redis (issue 30), through
// the real binary: a second serve with cache.url: memory is refused with one line naming the
// first (pid, address) and what to do, exit 1; a worker and the CLI still run beside serve; a
// serve killed with SIGKILL does not block the next start; with Redis two serves run side by
// side, and a serve without it is refused beside them.
import { hostname } from 'node:os';
import test, { type ExecutionContext } from 'ava';
import { countRun, createTestDatabase, needing, redisUrl } from '../helpers/backends.js';
import { runCli } from '../helpers/cli.js';
import { processEnv, startProcess, startSimulatorProcess, writeSharedConfig, type RunningProcess } from '../helpers/processes.js';

const serveArgs = ['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'];

async function started(t: ExecutionContext, args: string[], env: Record<string, string>): Promise<RunningProcess> {
  const running = await startProcess(args, env);
  t.teardown(() => running.stop());
  return running;
}

const refusal = (filename: string, first: RunningProcess) =>
  `error: another gateway serve is running on the SQLite database ${filename} (pid ${first.announced.pid} on ${hostname()}, ${first.url}); ` +
  'two serve processes on one database would each keep their own rate limits. Stop it first, or set cache.url to one Redis (redis://…) for every serve, which shares the limits. ' +
  'gateway worker and the other commands may run beside serve; to use several cores, give one serve --workers N (server.workers).';

test('a second serve on one SQLite file without Redis is refused with what runs and what to do; worker and CLI run beside; after SIGKILL the next serve starts', async (t) => {
  t.timeout(120_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const simulator = await startSimulatorProcess(t);
  const env = processEnv(writeSharedConfig(simulator.url), database, { GATEWAY_CACHE_URL: 'memory' });
  const filename = database.database.filename!;

  const first = await startProcess(serveArgs, env);
  t.teardown(() => first.kill());
  const second = await runCli(serveArgs, env);
  t.is(second.exitCode, 1);
  t.is(second.stdout, '');
  t.is(second.stderr.trim(), refusal(filename, first));
  const secondJson = await runCli([...serveArgs, '--json'], env);
  t.is(secondJson.exitCode, 1);
  t.like(JSON.parse(secondJson.stderr.trim().split('\n').at(-1)!), { error: { code: 'serve_already_running' } });
  t.is((await fetch(`${first.url}/healthz`)).status, 200, 'the first one runs on');

  // The job runner alone and the other commands are not serve: they run beside it.
  const worker = await started(t, ['worker'], env);
  t.truthy(worker.announced.runner);
  const listed = await runCli(['accounts', 'ls', '--json'], env);
  t.is(listed.exitCode, 0, listed.stderr);

  // SIGKILL: no cleanup, no stop; the lock goes with the process, the next serve starts at once.
  await first.kill();
  const next = await started(t, serveArgs, env);
  t.is((await fetch(`${next.url}/healthz`)).status, 200);
  countRun('sqlite');
});

needing('redis')('with Redis (shared rate limits) two serves run on one SQLite file; a serve without Redis is refused beside them', async (t) => {
  t.timeout(120_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const simulator = await startSimulatorProcess(t);
  const config = writeSharedConfig(simulator.url);
  const env = processEnv(config, database, { GATEWAY_CACHE_URL: redisUrl! });

  const first = await started(t, serveArgs, env);
  const second = await started(t, serveArgs, env);
  for (const serve of [first, second]) t.is((await fetch(`${serve.url}/healthz`)).status, 200);

  const alone = await runCli(serveArgs, { ...env, GATEWAY_CACHE_URL: 'memory' });
  t.is(alone.exitCode, 1);
  t.regex(alone.stderr, /^error: another gateway serve is running on the SQLite database /);
  // Both recorded themselves (the newest first), each with its pid and address.
  for (const serve of [first, second]) t.true(alone.stderr.includes(`pid ${serve.announced.pid} on ${hostname()}, ${serve.url}`), alone.stderr);
  countRun('sqlite');
  countRun('redis');
});
