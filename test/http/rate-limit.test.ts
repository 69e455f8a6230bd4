import OpenAI from 'openai';
import { MemoryRateLimiter } from '../../src/auth/rate-limiter.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

// The limiter's clock is held still during the burst, so "61 calls in one second" holds
// however loaded the test machine is; the real-time version runs against Redis with two
// server processes (rate-limit-redis.test.ts).
testOnBackends('61 calls in one second: the 61st is a 429 with Retry-After; refused calls are not counted', async (t, database) => {
  let now = 1_000_000;
  const gateway = await startGateway(t, database, { rateLimiter: new MemoryRateLimiter(() => now) });
  const { key } = await gateway.newClient();
  const get = () => fetch(`${gateway.url}/v1/history?limit=1`, { headers: { authorization: `Bearer ${key}` } });
  const first60: Response[] = [];
  for (let i = 0; i < 60; i++) {
    first60.push(await get());
    now += 10; // 60 calls over 0.6 s
  }
  t.deepEqual(first60.map((r) => r.status), Array(60).fill(200));
  t.is(first60[0]!.headers.get('x-ratelimit-remaining-requests'), '59');
  const last = await get();
  t.is(last.status, 429);
  const retryAfter = Number(last.headers.get('retry-after'));
  t.is(last.headers.get('retry-after-ms'), '400', 'the first slot frees 1 s after the first call');
  t.is(retryAfter, 1);
  t.is(last.headers.get('x-ratelimit-limit-requests'), '60');
  t.is(last.headers.get('x-ratelimit-remaining-requests'), '0');
  // 60 slots of 1 s taken 0.6 s ago: whole again in 59.4 s, shown rounded up to the second.
  t.is(last.headers.get('x-ratelimit-reset-requests'), '1m0s');
  const body = (await last.json()) as any;
  t.is(body.error.type, 'rate_limit_error');
  t.is(body.error.code, 'rate_limit_exceeded');

  // Hammering while refused does not push the next slot further away.
  for (let i = 0; i < 10; i++) t.is((await get()).status, 429);
  now += 400;
  t.is((await get()).status, 200, 'admitted again exactly at Retry-After, despite the refused calls');
  t.is((await get()).status, 429);
});

testOnBackends('a per-key rpm overrides the default; the OpenAI SDK sees RateLimitError', async (t, database) => {
  const gateway = await startGateway(t, database, { rateLimiter: new MemoryRateLimiter(() => 5_000_000) });
  const { key } = await gateway.newClient({ rpm: 5 });
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  for (let i = 0; i < 5; i++) await client.get('/history');
  const error = await t.throwsAsync(client.get('/history'), { instanceOf: OpenAI.RateLimitError });
  t.is(error!.headers?.get('x-ratelimit-limit-requests'), '5');
  t.is(error!.headers?.get('retry-after'), '12');
  // Another key has its own allowance.
  const other = await gateway.newClient({ rpm: 5 });
  t.is((await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${other.key}` } })).status, 200);
});
