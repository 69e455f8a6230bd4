// A Redis outage costs a keyed request at most cache.timeout, never a hang (before: every keyed
// request waited for as long as Redis was down, and /readyz said ready). /readyz says so: 200
// "degraded" naming the cache under "open" (every instance keeps serving; a 503 from all of them
// would have a load balancer pull them all), 503 under "closed". Redis sits behind a
// loopback TCP proxy that the tests cut (connections reset and refused), stall (connections
// open, no byte passes) and restore. Policies: "open" falls back to each process's own limiter,
// "closed" answers 503 with Retry-After in the route's error dialect. Recovery needs no restart.
import { readFileSync } from 'node:fs';
import test, { type ExecutionContext } from 'ava';
import { parse } from 'yaml';
import type { ChatRequest } from '../../src/model/chat.js';
import { countRun, createTestDatabase, needing, redisUrl, type TestDatabase } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const redisTest = needing('redis');

/**
 * A hang guard, not a performance bound (documented exception to "no timers in tests"): the old
 * behaviour was an answer only once Redis was back, and every test restores Redis only after
 * these answers, so a request that waits for Redis would never answer at all. The bound only
 * turns that hang into a failure that names the request; it sits far above cache.timeout (1 s)
 * so that a loaded machine never trips it.
 */
const answerBoundMs = 30_000;

async function answeredWithin<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${answerBoundMs} ms`)), answerBoundMs)));
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

async function startRedisGateway(t: ExecutionContext, database: TestDatabase, proxy: TcpProxy, onUnavailable: 'open' | 'closed'): Promise<TestGateway> {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  return startGateway(t, database, {
    env: { GATEWAY_CACHE_URL: `redis://127.0.0.1:${proxy.port}` },
    // cache.timeout 1 s, not 250 ms: a loaded test machine must not make a healthy Redis look stalled.
    raw: { ...raw, cache: { url: 'memory', timeout: '1s', on_unavailable: onUnavailable } },
  });
}

async function startRedisProxy(t: ExecutionContext): Promise<TcpProxy> {
  const target = new URL(redisUrl!);
  const proxy = await startTcpProxy(Number(target.port || 6379), target.hostname);
  t.teardown(() => proxy.close());
  return proxy;
}

const history = (gateway: TestGateway, key: string) =>
  fetch(`${gateway.url}/v1/history?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then(async (response) => ({
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as any,
  }));

const readyz = (gateway: TestGateway) => fetch(`${gateway.url}/readyz`).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

/** Polls /readyz until it says ready (Redis answers again: a 200 "degraded" is not that). Each poll is an answer: /readyz itself is bounded by cache.timeout. */
async function untilReady(gateway: TestGateway): Promise<{ status: number; body: any }> {
  return eventually(
    async () => {
      const answer = await readyz(gateway);
      return answer.body.status === 'ready' ? answer : undefined;
    },
    { what: '/readyz says ready', intervalMs: 50 },
  );
}

redisTest('on_unavailable=open: cut Redis → keyed requests answer 200 at once, each process limits on its own, /readyz 200 degraded naming the cache; restored → limits shared again', async (t) => {
  t.timeout(60_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const proxy = await startRedisProxy(t);
  const first = await startRedisGateway(t, database, proxy, 'open');
  const second = await startRedisGateway(t, database, proxy, 'open');
  t.deepEqual(await readyz(first), { status: 200, body: { status: 'ready' } });

  proxy.cut();
  const { key } = await first.newClient({ rpm: 2 });
  const answer = await answeredWithin(history(first, key), 'keyed request with Redis cut');
  t.is(answer.status, 200);
  // The fallback still limits: each process admits the key's allowance on its own.
  t.is((await history(first, key)).status, 200);
  t.is((await history(first, key)).status, 429);
  t.is((await history(second, key)).status, 200);
  // Still in service for a load balancer, saying what is missing.
  for (const gateway of [first, second]) {
    t.deepEqual(await readyz(gateway), {
      status: 200,
      body: {
        status: 'degraded',
        dependency: 'cache',
        reason: `cache unreachable: Redis at redis://127.0.0.1:${proxy.port} (cache.on_unavailable=open): serving, each process limiting keys on its own until Redis is back`,
      },
    });
  }

  proxy.restore();
  await untilReady(first);
  await untilReady(second);
  // Shared again: a 3-per-minute key gets 3 admissions across both processes, not 3 each.
  const { key: shared } = await first.newClient({ rpm: 3 });
  const statuses = [];
  for (let index = 0; index < 6; index++) statuses.push((await history(index % 2 === 0 ? first : second, shared)).status);
  t.deepEqual(statuses, [200, 200, 200, 429, 429, 429]);
  countRun('redis');
});

redisTest('on_unavailable=open: a stalled Redis (connection open, no answer) costs a request cache.timeout, prefix lookups and chat included (a prompt-cache miss)', async (t) => {
  t.timeout(60_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const proxy = await startRedisProxy(t);
  const gateway = await startRedisGateway(t, database, proxy, 'open');
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const chat = () =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sim/chat',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'A first question that is long enough to be a prefix.' },
          { role: 'assistant', content: 'A first answer.' },
          { role: 'user', content: 'And another one?' },
        ],
      }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));
  // The gateway's own prompt-cache accounting (prefix-tracker.ts) over Redis.
  const conversation = {
    model: 'sim/chat',
    system: [{ type: 'text' as const, text: `Be brief (${process.pid}-${Date.now()}).` }], // Redis outlives test runs
    messages: [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'A first question that is long enough to be a prefix.' }] },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'A first answer.' }] },
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'And another one?' }] },
    ],
    tools: [],
    stop: [],
    stream: false,
    includeUsage: false,
  } satisfies ChatRequest;
  const tracker = gateway.services.prefixTracker;
  t.is(await tracker.cachedTokens('sim/chat', conversation), 0);
  const remembered = await tracker.cachedTokens('sim/chat', conversation);
  t.true(remembered > 0, 'a prefix seen before is counted as cached while Redis answers');
  t.is((await chat()).status, 200);

  proxy.stall();
  t.is((await answeredWithin(history(gateway, key), 'keyed request with Redis stalled')).status, 200);
  t.is(await answeredWithin(tracker.cachedTokens('sim/chat', conversation), 'prefix lookup with Redis stalled'), 0, 'a lookup that cannot be made is a miss');
  t.is((await answeredWithin(chat(), 'chat with Redis stalled')).status, 200);
  const degraded = await answeredWithin(readyz(gateway), '/readyz with Redis stalled');
  t.is(degraded.status, 200);
  t.is(degraded.body.status, 'degraded');
  t.is(degraded.body.dependency, 'cache');
  t.regex(degraded.body.reason, /^cache unreachable: Redis at redis:\/\/127\.0\.0\.1:\d+(: no answer within 1000 ms)? \(cache\.on_unavailable=open\): serving, each process limiting keys on its own until Redis is back$/);

  proxy.restore();
  await untilReady(gateway);
  t.is((await history(gateway, key)).status, 200);
  t.is(await tracker.cachedTokens('sim/chat', conversation), remembered, 'the remembered prefix is found again');
  countRun('redis');
});

redisTest('on_unavailable=closed: cut Redis → 503 with Retry-After in the route dialect (nothing held); restored → 200 without a restart', async (t) => {
  t.timeout(60_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const proxy = await startRedisProxy(t);
  const gateway = await startRedisGateway(t, database, proxy, 'closed');
  const { key, accountId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  t.is((await history(gateway, key)).status, 200);

  proxy.cut();
  const refused = await answeredWithin(history(gateway, key), 'keyed request with Redis cut');
  t.is(refused.status, 503);
  t.is(refused.headers.get('retry-after'), '2');
  t.is(refused.headers.get('x-should-retry'), 'true');
  t.deepEqual(refused.body, {
    error: {
      message: 'The rate limiter is unavailable (its Redis does not answer); nothing was done. Retry shortly.',
      type: 'server_error',
      param: null,
      code: 'rate_limiter_unavailable',
    },
  });
  const messages = await answeredWithin(
    fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim/chat', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }),
    }),
    '/v1/messages with Redis cut',
  );
  t.is(messages.status, 503);
  t.is(messages.headers.get('retry-after'), '2');
  const messagesBody = (await messages.json()) as any;
  t.is(messagesBody.type, 'error');
  t.is(messagesBody.error.type, 'api_error');
  t.is(messagesBody.error.message, 'The rate limiter is unavailable (its Redis does not answer); nothing was done. Retry shortly.');
  t.is((await database.db('holds').where({ account_id: accountId }).count({ n: '*' }).first())?.n, 0, 'nothing was held');
  t.deepEqual(await readyz(gateway), {
    status: 503,
    body: { status: 'unavailable', dependency: 'cache', reason: `cache unreachable: Redis at redis://127.0.0.1:${proxy.port} (cache.on_unavailable=closed)` },
  });

  proxy.restore();
  await untilReady(gateway);
  t.is((await history(gateway, key)).status, 200);
  countRun('redis');
});
