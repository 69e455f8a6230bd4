// /readyz is what a load balancer checks, so it answers 503 only when this instance cannot
// serve. Real outages: PostgreSQL and Redis each behind a loopback TCP proxy that the test
// cuts (connections reset and refused). Under cache.on_unavailable=open a Redis outage is a
// 200 "degraded" naming the cache while the API keeps serving (before: 503 from every
// instance at once, which would have had a load balancer pull them all); under "closed" it is
// a 503, as keyed requests are refused. The database down is a 503 under either.
import { readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import { parse } from 'yaml';
import { countRun, createTestDatabase, needing, pgUrl, redisUrl } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const outageTest = needing('postgres', 'redis');

async function proxyTo(t: ExecutionContext, url: string, defaultPort: number): Promise<TcpProxy> {
  const target = new URL(url);
  const proxy = await startTcpProxy(Number(target.port || defaultPort), target.hostname);
  t.teardown(() => proxy.close());
  return proxy;
}

/** A gateway on a fresh PostgreSQL database and on Redis, each reached through its own proxy. */
async function startProxiedGateway(t: ExecutionContext, onUnavailable: 'open' | 'closed') {
  const database = await createTestDatabase('postgres');
  t.teardown(() => database.drop());
  const postgres = await proxyTo(t, pgUrl!, 5432);
  const redis = await proxyTo(t, redisUrl!, 6379);
  const proxied = new URL(database.url);
  proxied.port = String(postgres.port);
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, { ...database, url: proxied.toString() }, {
    env: { GATEWAY_CACHE_URL: `redis://127.0.0.1:${redis.port}` },
    // cache.timeout 1 s: a loaded test machine must not make a healthy Redis look stalled.
    raw: { ...raw, cache: { url: 'memory', timeout: '1s', on_unavailable: onUnavailable } },
  });
  return { gateway, postgres, redis };
}

const readyz = (gateway: TestGateway) => fetch(`${gateway.url}/readyz`).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

const chat = (gateway: TestGateway, key: string) =>
  fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/chat', messages: [{ role: 'user', content: 'Still there?' }] }),
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

/** Polls /readyz until its body says `status` (Redis and the pool reconnect in the background). */
const untilReadyz = (gateway: TestGateway, status: 'ready' | 'unavailable') =>
  eventually(
    async () => {
      const answer = await readyz(gateway);
      return answer.body.status === status ? answer : undefined;
    },
    { what: `/readyz says ${status}`, intervalMs: 50 },
  );

for (const mode of ['open', 'closed'] as const) {
  outageTest(`cache.on_unavailable=${mode}: Redis cut → /readyz ${mode === 'open' ? '200 degraded (the API serves on)' : '503'}; PostgreSQL cut too → 503 naming the database; both back → ready`, async (t) => {
    t.timeout(90_000);
    const { gateway, postgres, redis } = await startProxiedGateway(t, mode);
    const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
    t.deepEqual(await readyz(gateway), { status: 200, body: { status: 'ready' } });

    redis.cut();
    const cacheReason = `cache unreachable: Redis at redis://127.0.0.1:${redis.port} (cache.on_unavailable=${mode})`;
    if (mode === 'open') {
      t.deepEqual(await readyz(gateway), {
        status: 200,
        body: { status: 'degraded', dependency: 'cache', reason: `${cacheReason}: serving, each process limiting keys on its own until Redis is back` },
      });
      const answered = await chat(gateway, key);
      t.is(answered.status, 200, JSON.stringify(answered.body));
      t.is(answered.body.object, 'chat.completion');
    } else {
      t.deepEqual(await readyz(gateway), { status: 503, body: { status: 'unavailable', dependency: 'cache', reason: cacheReason } });
      t.is((await chat(gateway, key)).body.error.code, 'rate_limiter_unavailable');
    }

    postgres.cut();
    const down = await untilReadyz(gateway, 'unavailable').then((answer) => (t.is(answer.status, 503), answer.body));
    t.is(down.status, 'unavailable');
    t.is(down.dependency, 'database');
    t.true(down.reason.startsWith('database unreachable: '), down.reason);

    postgres.restore();
    redis.restore();
    t.deepEqual(await untilReadyz(gateway, 'ready'), { status: 200, body: { status: 'ready' } }, 'ready again, not degraded, without a restart');
    countRun('postgres');
    countRun('redis');
  });
}
