import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

testOnBackends('61 calls in one second: the 61st is a 429 with Retry-After; refused calls are not counted', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { key } = await gateway.newClient();
  const get = () => fetch(`${gateway.url}/v1/history?limit=1`, { headers: { authorization: `Bearer ${key}` } });
  // Warm the server up with another key first, so the timed second measures the limiter only.
  const warmUp = await gateway.newClient();
  for (let i = 0; i < 10; i++) await (await fetch(`${gateway.url}/v1/history?limit=1`, { headers: { authorization: `Bearer ${warmUp.key}` } })).arrayBuffer();
  const started = Date.now();
  const first60 = await Promise.all(Array.from({ length: 60 }, () => get().then(async (r) => (await r.arrayBuffer(), r.status))));
  const last: Response | undefined = await get();
  t.true(Date.now() - started < 1000, 'the 61 calls fit in one second');
  t.deepEqual(first60, Array(60).fill(200));
  t.is(last!.status, 429);
  const retryAfter = Number(last!.headers.get('retry-after'));
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter} is an integer in 1..60`);
  t.true(Number(last!.headers.get('retry-after-ms')) > 0);
  t.is(last!.headers.get('x-ratelimit-limit-requests'), '60');
  t.is(last!.headers.get('x-ratelimit-remaining-requests'), '0');
  t.truthy(last!.headers.get('x-ratelimit-reset-requests'));
  const body = (await last!.json()) as any;
  t.is(body.error.type, 'rate_limit_error');
  t.is(body.error.code, 'rate_limit_exceeded');

  // Hammering while refused does not push the next slot further away.
  for (let i = 0; i < 10; i++) t.is((await get()).status, 429);
  await sleep(Number(last!.headers.get('retry-after-ms')) + 50);
  t.is((await get()).status, 200, 'admitted again after Retry-After, despite the refused calls');
});

testOnBackends('a per-key rpm overrides the default; the OpenAI SDK sees RateLimitError', async (t, database) => {
  const gateway = await startGateway(t, database);
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
