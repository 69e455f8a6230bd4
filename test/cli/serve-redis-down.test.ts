// `gateway serve` started while its Redis is down says so in one line (the URL without its
// password, the policy in effect) and keeps serving; it does not log a stack per reconnect
// attempt (before: one every 2 s, forever). When Redis comes back it is used again without a
// restart, and that is logged once.
import net from 'node:net';
import { once } from 'node:events';
import test from 'ava';
import { execa } from 'execa';
import { countRun, createTestDatabase, needing, redisUrl } from '../helpers/backends.js';
import { cliEnv, gatewayBin } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

/** Starts `serve --json`; resolves with its URL, and collects stderr (the log, with --json). */
async function startServe(env: Record<string, string>) {
  const child = execa(gatewayBin, ['serve', '--host', '127.0.0.1', '--port', '0', '--json'], { env, reject: false, extendEnv: true, buffer: false });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve(JSON.parse(line).url);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
  });
  return {
    url,
    logLines: () => stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string }),
    async stop() {
      child.kill('SIGTERM');
      return (await child).exitCode;
    },
  };
}

async function readyz(url: string) {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as any };
}

test('serve with Redis down: one line naming the URL without its password and the policy, no log per reconnect attempt, keeps serving', async (t) => {
  t.timeout(60_000);
  // A "Redis" that resets every connection and counts the attempts.
  let attempts = 0;
  let attempted: () => void = () => undefined;
  const dead = net.createServer((socket) => {
    attempts++;
    attempted();
    socket.on('error', () => undefined);
    socket.resetAndDestroy();
  });
  dead.listen(0, '127.0.0.1');
  await once(dead, 'listening');
  t.teardown(() => new Promise<void>((resolve) => dead.close(() => resolve())));
  const { port } = dead.address() as net.AddressInfo;

  const serve = await startServe(cliEnv(undefined, { GATEWAY_CACHE_URL: `redis://gw:s3cret-pass@127.0.0.1:${port}`, GATEWAY_LOG_LEVEL: 'info' }));
  t.teardown(() => serve.stop());
  // Several reconnect attempts (backoff from 100 ms) happen while it serves.
  await new Promise<void>((resolve) => {
    attempted = () => attempts >= 4 && resolve();
    attempted();
  });
  // Serving (cache.on_unavailable=open), so still in service for a load balancer: 200, degraded.
  t.deepEqual(await readyz(serve.url), {
    status: 200,
    body: {
      status: 'degraded',
      dependency: 'cache',
      reason: `cache unreachable: Redis at redis://gw@127.0.0.1:${port} (cache.on_unavailable=open): serving, each process limiting keys on its own until Redis is back`,
    },
  });
  t.is((await fetch(`${serve.url}/healthz`)).status, 200);
  t.is(await serve.stop(), 0);

  const lines = serve.logLines();
  const aboutRedis = lines.filter((line) => /redis/i.test(line.msg));
  t.is(aboutRedis.length, 1, JSON.stringify(aboutRedis));
  // The reset is seen while connecting, writing or reading, depending on timing.
  t.is(
    aboutRedis[0]!.msg.replace(/\((connect|read|write) ECONNRESET[^)]*\)/, '(ECONNRESET)'),
    `Redis at redis://gw@127.0.0.1:${port} is unreachable (ECONNRESET); starting with cache.on_unavailable=open (each process limits keys on its own) and reconnecting in the background`,
  );
  t.false(JSON.stringify(lines).includes('s3cret-pass'), 'the password is never logged');
  t.false(JSON.stringify(lines).includes('"stack"'), 'no stack');
});

const redisTest = needing('redis');

redisTest('serve started with Redis down uses it once it is back, without a restart, logged once', async (t) => {
  t.timeout(60_000);
  const target = new URL(redisUrl!);
  const proxy = await startTcpProxy(Number(target.port || 6379), target.hostname);
  t.teardown(() => proxy.close());
  proxy.cut();
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const serve = await startServe(cliEnv(database, { GATEWAY_CACHE_URL: `redis://127.0.0.1:${proxy.port}`, GATEWAY_LOG_LEVEL: 'info' }));
  t.teardown(() => serve.stop());
  t.like(await readyz(serve.url), { status: 200, body: { status: 'degraded', dependency: 'cache' } });

  proxy.restore();
  const ready = await eventually(
    async () => {
      const answer = await readyz(serve.url);
      return answer.body.status === 'ready' ? answer : undefined;
    },
    { what: '/readyz says ready after Redis is back', intervalMs: 50 },
  );
  t.deepEqual(ready, { status: 200, body: { status: 'ready' } });
  t.is(await serve.stop(), 0);
  const aboutRedis = serve.logLines().filter((line) => /redis/i.test(line.msg));
  t.deepEqual(
    aboutRedis.map((line) => line.msg.replace(/\((connect|read|write) ECONNRESET[^)]*\)/, '(ECONNRESET)')),
    [
      `Redis at redis://127.0.0.1:${proxy.port} is unreachable (ECONNRESET); starting with cache.on_unavailable=open (each process limits keys on its own) and reconnecting in the background`,
      `Redis at redis://127.0.0.1:${proxy.port} is reachable again: rate limits are shared again`,
    ],
  );
  countRun('redis');
});
