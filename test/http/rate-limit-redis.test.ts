// The rate limit is per key, not per process: two `gateway serve` processes sharing one
// Redis (and one database) admit 60 requests of a key per minute between them, not 120.
import { createClient } from '@redis/client';
import { RedisRateLimiter } from '../../src/auth/rate-limiter.js';
import { countRun, createTestDatabase, needing, redisUrl } from '../helpers/backends.js';
import { cliEnv, runCliJson, startServeProcess } from '../helpers/cli.js';

const redisTest = needing('redis');

redisTest('the Redis limiter admits exactly the allowance and tells when to retry', async (t) => {
  const client = createClient({ url: redisUrl });
  await client.connect();
  t.teardown(() => client.quit());
  // The command-options generic differs from the client type the limiter names; the commands are the same (as in src/cache/redis-connection.ts).
  const limiter = new RedisRateLimiter(client as unknown as ConstructorParameters<typeof RedisRateLimiter>[0], `gateway:test:${process.pid}:${Date.now()}:`);
  const decisions = await Promise.all(Array.from({ length: 65 }, () => limiter.consume('key_a', 60)));
  t.is(decisions.filter((d) => d.allowed).length, 60);
  const refused = decisions.find((d) => !d.allowed)!;
  t.true(refused.retryAfterMs > 0 && refused.retryAfterMs <= 1000);
  t.is(refused.remaining, 0);
  t.true((await limiter.consume('key_b', 60)).allowed, 'another key has its own allowance');
  countRun('redis');
});

redisTest('two serve processes sharing Redis admit 1 request of a 1-per-minute key, not 2', async (t) => {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const env = cliEnv(database, { GATEWAY_CACHE_URL: redisUrl! });
  await runCliJson(['accounts', 'create', 'shared'], env);
  // 1 per minute: one request, the next a minute later (on Redis's clock, which no test can
  // move). Shared, the 40 requests below get 1 admission between both processes; per process
  // they would get 2. A whole minute for 40 local requests is no bound on a loaded machine:
  // nothing here asserts how long they took.
  const { key } = await runCliJson(['keys', 'create', '--account', 'shared', '--rpm', '1'], env);
  const servers = await Promise.all([startServeProcess(env), startServeProcess(env)]);
  t.teardown(() => Promise.all(servers.map((s) => s.stop())));
  // Warm both up with another key so the burst below lands quickly.
  const { key: warm } = await runCliJson(['keys', 'create', '--account', 'shared'], env);
  for (const server of servers) for (let i = 0; i < 5; i++) await (await fetch(`${server.url}/v1/history`, { headers: { authorization: `Bearer ${warm}` } })).arrayBuffer();

  const statuses = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      fetch(`${servers[i % 2]!.url}/v1/history?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => (await r.arrayBuffer(), r.status)),
    ),
  );
  t.is(statuses.filter((s) => s === 200).length, 1);
  t.is(statuses.filter((s) => s === 429).length, 39);
  countRun('redis');
});
