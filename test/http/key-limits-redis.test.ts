// A key's tokens per minute and requests in flight are the key's, not the instance's: two
// gateway instances over one Redis (and one database, SQLite or PostgreSQL) count them together.
// And a slot of an instance that crashed, never given back, frees itself when its lease ends.
import { createClient } from '@redis/client';
import OpenAI from 'openai';
import { RedisKeyLimitStore, inFlightLeaseMs } from '../../src/auth/key-limits-redis.js';
import { backends, countRun, createTestDatabase, needing, redisUrl } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const redisTest = needing('redis');
const balanceUnits = 100_000_000n;
const question = [{ role: 'user' as const, content: 'How many tokens is this? [[sim:tokens=12]]' }];

const openaiOf = (gateway: TestGateway, key: string) => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });

for (const backend of backends) {
  redisTest(`two instances over one Redis share a key's tpm and its requests in flight [${backend}]`, async (t) => {
    const database = await createTestDatabase(backend);
    t.teardown(() => database.drop());
    const clock = testClock();
    const env = { GATEWAY_CACHE_URL: redisUrl! };
    const a = await startGateway(t, database, { env, now: clock.now });
    const b = await startGateway(t, database, { env, now: clock.now });

    // tpm: two calls' worth, one call made through each instance.
    const measure = await a.newClient({ balanceUnits });
    const completion = await openaiOf(a, measure.key).chat.completions.create({ model: 'sim/chat', messages: question });
    const used = completion.usage!.prompt_tokens + completion.usage!.completion_tokens;
    const { key } = await a.newClient({ balanceUnits, tpm: 2 * used });
    await openaiOf(a, key).chat.completions.create({ model: 'sim/chat', messages: question });
    const throughB = await openaiOf(b, key).chat.completions.create({ model: 'sim/chat', messages: question }).withResponse();
    t.is(throughB.response.headers.get('x-ratelimit-remaining-tokens'), String(used), "B counts A's call");
    for (const gateway of [a, b]) {
      const refused = await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } });
      t.is(refused.status, 429);
      t.is(refused.headers.get('retry-after-ms'), '1');
      t.is(((await refused.json()) as { error: { code: string } }).error.code, 'tokens_per_minute_exceeded');
    }
    clock.advance(30_000);
    t.is((await fetch(`${b.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } })).headers.get('x-ratelimit-remaining-tokens'), String(used));

    // In flight: a stream on A holds the key's one slot; B refuses; the client leaves; B admits.
    const single = await a.newClient({ balanceUnits, maxInFlight: 1 });
    const controller = new AbortController();
    // The simulator paces the stream (a chunk every 100 ms, 400 tokens): it is open until the client hangs up.
    const stream = await openaiOf(a, single.key).chat.completions.create(
      { model: 'sim/chat', stream: true, messages: [{ role: 'user', content: 'A long story [[sim:tokens=400]] [[sim:delay=100]]' }] },
      { signal: controller.signal },
    );
    await stream[Symbol.asyncIterator]().next();
    const refused = await fetch(`${b.url}/v1/history`, { headers: { authorization: `Bearer ${single.key}` } });
    t.is(refused.status, 429);
    t.is(refused.headers.get('retry-after'), '1');
    t.is(((await refused.json()) as { error: { code: string } }).error.code, 'too_many_requests_in_flight');
    controller.abort();
    await eventually(async () => (await fetch(`${b.url}/v1/history`, { headers: { authorization: `Bearer ${single.key}` } })).status === 200, {
      what: "the stream aborted on A gives back the slot B sees",
    });
    // Sequential requests alternating between the instances are each admitted: every one gave its slot back.
    for (const gateway of [a, b, a, b]) await openaiOf(gateway, single.key).chat.completions.create({ model: 'sim/chat', messages: question });
    countRun('redis');
  });
}

redisTest("a crashed instance's slot frees itself when its lease ends", async (t) => {
  const client = createClient({ url: redisUrl });
  await client.connect();
  t.teardown(() => client.quit());
  const clock = testClock();
  // The command-options generic differs from the client type the store names; the commands are the same.
  const redis = client as unknown as ConstructorParameters<typeof RedisKeyLimitStore>[0];
  const namespace = `gateway:test:${process.pid}:${Date.now()}:`;
  // The crashed instance: it took a slot, then stopped renewing it and never gave it back.
  const crashed = new RedisKeyLimitStore(redis, clock.now, namespace);
  t.truthy(await crashed.enter('key_crashed', 'request_lost', 1, clock.now()));
  await crashed.close();
  const store = new RedisKeyLimitStore(redis, clock.now, namespace);
  t.teardown(() => store.close());
  clock.advance(inFlightLeaseMs - 1);
  t.is(await store.enter('key_crashed', 'request_2', 1, clock.now()), null, 'still leased');
  clock.advance(1);
  const release = await store.enter('key_crashed', 'request_3', 1, clock.now());
  t.truthy(release, 'the lease ended: the slot is free');
  await release!();
  t.truthy(await store.enter('key_crashed', 'request_4', 1, clock.now()), 'given back');
  countRun('redis');
});
