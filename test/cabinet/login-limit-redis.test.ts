// The login limit is per client address, not per instance: two gateways sharing one Redis
// (and one database) admit `cabinet.login_attempts_per_minute` attempts from an address between
// them. Redis's own clock runs the limit, so the allowance is small (2 a minute: the third
// attempt within 30 s is refused) and nothing asserts how long the requests took.
import { readFileSync } from 'node:fs';
import { createClient } from '@redis/client';
import { parse } from 'yaml';
import { RedisRateLimiter } from '../../src/auth/rate-limiter.js';
import { countRun, createTestDatabase, needing, redisUrl } from '../helpers/backends.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';

const redisTest = needing('redis');

redisTest('two gateways sharing Redis admit the login allowance of an address once between them', async (t) => {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const namespace = `gateway:test:${process.pid}:${Date.now()}:`;
  const raw = { ...(parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, unknown>), cabinet: { login_attempts_per_minute: 2 } };
  const gateways = [];
  for (let i = 0; i < 2; i++) {
    const client = createClient({ url: redisUrl });
    await client.connect();
    t.teardown(() => client.quit());
    // The command-options generic differs from the client type the limiter names; the commands are the same (as in rate-limit-redis.test.ts).
    const rateLimiter = new RedisRateLimiter(client as unknown as ConstructorParameters<typeof RedisRateLimiter>[0], namespace);
    gateways.push(await startGateway(t, database, { raw, rateLimiter }));
  }
  const attempt = async (url: string) => (await fetch(`${url}/cabinet/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: `gwl_${'a'.repeat(43)}` }) })).status;
  const statuses = [await attempt(gateways[0]!.url), await attempt(gateways[1]!.url), await attempt(gateways[0]!.url), await attempt(gateways[1]!.url)];
  t.deepEqual(statuses, [401, 401, 429, 429], 'two attempts between both instances, then refused on either');
  countRun('redis');
});
