// The chat routes take a key this process has seen live from its cache (no lookup); the hold
// re-checks it in its own statement. A key revoked by another process (the CLI) must still be
// refused on its very next request, on every chat route, with nothing held, charged or sent
// upstream; a free model (no hold) checks the key on its own.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { KeyNotLiveError } from '../../src/auth/key-errors.js';
import { countRun, testOnBackends } from '../helpers/backends.js';
import { startChatGateway } from '../helpers/chat-gateway.js';
import { cliEnv, runCliJson } from '../helpers/cli.js';
import { createClient, processEnv, startProcess, startSimulatorProcess, twoServesEnv, writeSharedConfig } from '../helpers/processes.js';

const freeModel = { id: 't/free', name: 'free', type: 'text', route: { provider: 'openai', model: 'chat' }, pricing: { per_1m_input_tokens: '0', per_1m_output_tokens: '0' } };

type Call = (clients: { openai: OpenAI; anthropic: Anthropic }) => Promise<unknown>;
const routes: Record<string, Call> = {
  'chat completions': ({ openai }) => openai.chat.completions.create({ model: 'openai/chat', messages: [{ role: 'user', content: 'hi' }] }),
  responses: ({ openai }) => openai.responses.create({ model: 'openai/chat', input: 'hi' }),
  messages: ({ anthropic }) => anthropic.messages.create({ model: 'anthropic/chat', max_tokens: 300, messages: [{ role: 'user', content: 'hi' }] }),
  'a free model (no hold)': ({ openai }) => openai.chat.completions.create({ model: 't/free', messages: [{ role: 'user', content: 'hi' }] }),
};

testOnBackends('a cached key revoked by the CLI is refused on its next request on every chat route, nothing held or sent upstream', async (t, database) => {
  const gateway = await startChatGateway(t, database, { models: [freeModel] });
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const usageRecords = async () => {
    await gateway.services.usageRecords.flush();
    return Number((await database.db('usage_records').count({ n: '*' }).first())!.n);
  };
  // A key per route (a refused key leaves the cache, so each route must meet a cached key).
  for (const [route, call] of Object.entries(routes)) {
    const { apiKey, key } = await gateway.services.apiKeys.create({ accountId });
    const clients = { openai: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 }), anthropic: new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 }) };
    await call(clients); // served: the key is now in the serving process's cache
    const usageBefore = await usageRecords();
    const balanceBefore = await gateway.services.ledger.balance(accountId);
    const holdsBefore = Number((await database.db('holds').where({ account_id: accountId }).count({ n: '*' }).first())!.n);

    await runCliJson(['keys', 'revoke', apiKey.id], cliEnv(database));

    const error = (await t.throwsAsync(call(clients), undefined, route)) as { status?: number; message: string };
    t.is(error.status, 401, route);
    t.regex(error.message, /revoked/, route);
    t.deepEqual(await gateway.services.ledger.balance(accountId), { ...balanceBefore, heldUnits: 0n }, `${route}: nothing charged or held`);
    t.is(Number((await database.db('holds').where({ account_id: accountId }).count({ n: '*' }).first())!.n), holdsBefore, `${route}: no hold placed`);
    t.is(await usageRecords(), usageBefore, `${route}: nothing reached an upstream`);
    // Once refused, the key is out of the cache: other routes, which always look it up, agree.
    t.is((await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } })).status, 401);
  }
});

testOnBackends('a hold for a revoked key is refused whether or not the balance covers it; a live key is held', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { keyId, accountId } = await gateway.newClient({ balanceUnits: 1_000n });
  const { ledger, apiKeys } = gateway.services;
  const live = await ledger.hold(accountId, 500n, { ttlMs: 60_000, keyId });
  t.is((await ledger.balance(accountId)).heldUnits, 500n);
  await ledger.release(live.id);
  await apiKeys.revoke(keyId);
  t.false(await apiKeys.isLive(keyId));
  await t.throwsAsync(ledger.hold(accountId, 500n, { ttlMs: 60_000, keyId }), { instanceOf: KeyNotLiveError });
  await t.throwsAsync(ledger.hold(accountId, 5_000n, { ttlMs: 60_000, keyId }), { instanceOf: KeyNotLiveError }, 'over the balance: the key is reported, not the balance');
  t.like(await ledger.balance(accountId), { balanceUnits: 1_000n, heldUnits: 0n });
  // Without a key id (jobs, media: their keys were looked up) the hold does not ask.
  const keyless = await ledger.hold(accountId, 500n, { ttlMs: 60_000 });
  await ledger.release(keyless.id);
});

testOnBackends('the key cache answers only where asked; a plain lookup sees a revocation made behind it and evicts the key', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, keyId } = await gateway.newClient();
  const { apiKeys } = gateway.services;
  t.is((await apiKeys.authenticate(key, { cached: true }))?.id, keyId, 'looked up, then cached');
  // Another process revokes it: this process's cache does not know.
  await database.db('api_keys').where({ id: keyId }).update({ revoked_at: Date.now() });
  t.is((await apiKeys.authenticate(key, { cached: true }))?.id, keyId, 'the cache answers (the hold is what re-checks)');
  t.is(await apiKeys.authenticate(key), null, 'a plain lookup asks the database');
  t.is(await apiKeys.authenticate(key, { cached: true }), null, 'and the revoked key left the cache');
});

testOnBackends('a key revoked while two `serve` processes have it cached is refused by both on their next request', async (t, database) => {
  // Two real serve processes on one database, each with its own key cache (in process: Redis, which
  // shares their rate limits on SQLite, holds no keys); a third (the CLI) revokes.
  const simulator = await startSimulatorProcess(t);
  const env = processEnv(writeSharedConfig(simulator.url), database, twoServesEnv(database));
  const { accountId, key } = await createClient(database, 1_000_000n);
  const keyId = ((await database.db('api_keys').where({ account_id: accountId }).first()) as { id: string }).id;
  const servers = [await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env), await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env)];
  for (const server of servers) t.teardown(() => server.stop());
  const clients = servers.map((server) => ({
    server,
    openai: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: key, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: server.url, apiKey: key, maxRetries: 0 }),
  }));
  const ask: Record<string, Call> = {
    'chat completions': ({ openai }) => openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'hi' }] }),
    messages: ({ anthropic }) => anthropic.messages.create({ model: 'sim/chat', max_tokens: 300, messages: [{ role: 'user', content: 'hi' }] }),
  };
  for (const { openai, anthropic } of clients) for (const call of Object.values(ask)) await call({ openai, anthropic }); // now in both caches
  const balance = async () => (await database.db('accounts').where({ id: accountId }).first()) as { balance_units: unknown; held_units: unknown };
  const before = await balance();

  await runCliJson(['keys', 'revoke', keyId], cliEnv(database));

  for (const [index, { server, openai, anthropic }] of clients.entries()) {
    for (const [route, call] of Object.entries(ask)) {
      const error = (await t.throwsAsync(call({ openai, anthropic }), undefined, `${route} on process ${index + 1}`)) as { status?: number; message: string };
      t.is(error.status, 401, `${route} on process ${index + 1}`);
      t.regex(error.message, /revoked/);
    }
    t.is((await fetch(`${server.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } })).status, 401, `history on process ${index + 1}`);
  }
  t.deepEqual(await balance(), before, 'nothing charged or held after the revocation');
  if (database.backend === 'sqlite') countRun('redis');
}, { sqliteNeeds: ['redis'] });
