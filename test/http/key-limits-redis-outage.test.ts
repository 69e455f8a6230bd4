// A key's tpm and in-flight limits while Redis is cut (cache.on_unavailable: open): answered at
// once from the process's own counters, never a hang; and a slot whose release Redis missed is
// not kept forever: no longer renewed, it ends with its lease (on the gateway's clock).
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { parse } from 'yaml';
import { inFlightLeaseMs } from '../../src/auth/key-limits-redis.js';
import { countRun, createTestDatabase, needing, redisUrl } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const redisTest = needing('redis');
const balanceUnits = 100_000_000n;

const history = (gateway: TestGateway, key: string) => fetch(`${gateway.url}/v1/history?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then((response) => response.status);

/** A stream the simulator paces (a chunk every 100 ms, 400 tokens), open until `abort`. */
async function openStream(gateway: TestGateway, key: string): Promise<() => void> {
  const controller = new AbortController();
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const stream = await openai.chat.completions.create(
    { model: 'sim/chat', stream: true, messages: [{ role: 'user', content: 'A long story [[sim:tokens=400]] [[sim:delay=100]]' }] },
    { signal: controller.signal },
  );
  await stream[Symbol.asyncIterator]().next();
  return () => controller.abort();
}

redisTest('Redis cut (on_unavailable: open): tpm and in-flight fall back to the process; a slot whose release Redis missed ends with its lease', async (t) => {
  t.timeout(120_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const target = new URL(redisUrl!);
  const proxy = await startTcpProxy(Number(target.port || 6379), target.hostname);
  t.teardown(() => proxy.close());
  const clock = testClock();
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, database, {
    env: { GATEWAY_CACHE_URL: `redis://127.0.0.1:${proxy.port}` },
    raw: { ...raw, cache: { url: 'memory', timeout: '1s', on_unavailable: 'open' } },
    now: clock.now,
  });
  const redisReady = () => eventually(() => gateway.services.redis!.isReady, { what: 'the gateway is connected to Redis again' });
  const { key, keyId } = await gateway.newClient({ balanceUnits, maxInFlight: 1 });

  // Cut: the process's own counters.
  proxy.cut();
  const abortFirst = await openStream(gateway, key);
  t.is(await history(gateway, key), 429, 'the fallback counts the stream in flight');
  abortFirst();
  await eventually(async () => (await history(gateway, key)) === 200, { what: 'the aborted stream gives its slot back to the fallback' });
  const { key: tokenKey } = await gateway.newClient({ balanceUnits, tpm: 1 });
  await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: tokenKey, maxRetries: 0 }).chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'hi' }] });
  t.is(await history(gateway, tokenKey), 429, 'the fallback counts tokens');

  // Restored: a slot taken in Redis, whose release is lost in a cut.
  proxy.restore();
  await redisReady();
  const abortSecond = await openStream(gateway, key);
  proxy.cut();
  abortSecond();
  // Its request has ended (its request-log row is written once the whole chain, the slot's release included, is done).
  const streams = () => database.db('request_log').where({ key_id: keyId, method: 'POST' }).count({ n: '*' }).first().then((row) => Number(row!.n));
  await eventually(async () => (await streams()) === 2, { what: 'the second stream is logged' });
  proxy.restore();
  await redisReady();
  t.is(await history(gateway, key), 429, 'Redis still has the slot its release never reached');
  clock.advance(inFlightLeaseMs);
  t.is(await history(gateway, key), 200, 'not renewed, it ended with its lease');
  countRun('redis');
});
