// server.json_limit on the real JSON routes (it was tested only on a route the test declared):
// a body one byte past the cap is a 413 request_too_large in the route's own error dialect,
// before anything is held; a body of exactly the cap is read. The cap is set small here
// (64 KB) so the bodies stay small; its 10 MB default is checked in test/config/load.test.ts.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { testOnBackends } from '../helpers/backends.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';

const limit = 64 * 1024;

/** A JSON body of exactly `bytes` bytes: `body` with a padding field filling the rest. */
function sized(body: Record<string, unknown>, bytes: number): string {
  const empty = JSON.stringify({ ...body, padding: '' });
  return JSON.stringify({ ...body, padding: 'x'.repeat(bytes - Buffer.byteLength(empty)) });
}

const routes: { path: string; body: Record<string, unknown>; anthropic?: boolean }[] = [
  { path: '/v1/chat/completions', body: { model: 'sim/chat', messages: [{ role: 'user', content: 'hi' }] } },
  { path: '/v1/responses', body: { model: 'sim/chat', input: 'hi' } },
  { path: '/v1/messages', body: { model: 'sim/chat', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }, anthropic: true },
  { path: '/v1/images/generations', body: { model: 'sim/image', prompt: 'a cat' } },
  { path: '/v1/embeddings', body: { model: 'sim/embedding-small', input: 'hi' } },
  { path: '/v1/audio/speech', body: { model: 'sim/tts', voice: 'alloy', input: 'hi' } },
  { path: '/v1/videos', body: { model: 'sim/video', prompt: 'a cat', seconds: 4 } },
  { path: '/v1/audio/music', body: { model: 'sim/song', prompt: 'a tune' } },
];

testOnBackends('server.json_limit: one byte past it is a 413 in the route dialect on every JSON route, nothing held; exactly the limit is read', async (t, database) => {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, database, { raw: { ...raw, server: { ...raw.server, json_limit: limit } } });
  t.is(gateway.services.config.server.jsonLimitBytes, limit);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const post = (path: string, body: string) =>
    fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'x-api-key': key, 'content-type': 'application/json' }, body });
  const held = async () => (await gateway.services.ledger.balance(accountId)).heldUnits;
  for (const route of routes) {
    const heldBefore = await held(); // the video job served below keeps its hold while it runs
    const tooLarge = await post(route.path, sized(route.body, limit + 1));
    t.is(tooLarge.status, 413, route.path);
    const error = (await tooLarge.json()) as any;
    if (route.anthropic) {
      t.is(error.type, 'error', `${route.path}: Anthropic's error shape`);
      t.is(error.error.type, 'request_too_large', route.path);
    } else {
      t.is(error.error.code, 'request_too_large', route.path);
    }
    t.is(await held(), heldBefore, `${route.path}: nothing held`);
    // Exactly at the cap the body is read and served (the padding field is ignored).
    const atLimit = await post(route.path, sized(route.body, limit));
    t.is(atLimit.status, 200, `${route.path} at exactly ${limit} bytes: ${(await atLimit.text()).slice(0, 200)}`);
  }
});
