// Key controls (issue 18 item 1) through HTTP with the official SDKs, on both databases: expiry
// (401 api_key_expired on the injected clock), the model allowlist (403 model_not_allowed on all
// three chat dialects), the IP allowlist (403 ip_not_allowed from the TCP peer, or from the client
// a trusted proxy forwards), the budget
// (402 key_budget_exceeded; N concurrent against a budget for M: exactly M pass) — and a
// `keys update` made by the CLI binary (another process) while the serving process has the
// key in its cache, seen on the very next request. Nothing refused is held or charged.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { assertLedgerInvariants, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { startChatGateway } from '../helpers/chat-gateway.js';
import { testClock } from '../helpers/clock.js';
import { cliEnv, runCli, runCliJson } from '../helpers/cli.js';

const hourMs = 3_600_000;

const chat = (openai: OpenAI, model = 'sim/chat', content = 'hi') => openai.chat.completions.create({ model, max_tokens: 100, messages: [{ role: 'user', content }] });

async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string | null | undefined; type: string | undefined; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return { status: error.status!, code: error.code, type: error.type, message: error.message };
    if (error instanceof Anthropic.APIError) return { status: error.status!, code: undefined, type: (error.error as any)?.error?.type, message: error.message };
    throw error;
  }
  throw new Error('the request was not refused');
}

async function moneyOf(database: TestDatabase, accountId: string) {
  const account = (await database.db('accounts').where({ id: accountId }).first()) as { balance_units: unknown; held_units: unknown };
  const holds = Number((await database.db('holds').where({ account_id: accountId }).count({ n: '*' }).first())!.n);
  return { balance: BigInt(account.balance_units as string), held: BigInt(account.held_units as string), holds };
}

testOnBackends('an expired key is refused with 401 api_key_expired on every route, on the injected clock, nothing held', async (t, database) => {
  const clock = testClock();
  const gateway = await startChatGateway(t, database, { now: clock.now });
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const { apiKey, key } = await gateway.services.apiKeys.create({ accountId, expiresAt: clock.now() + hourMs });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  await chat(openai); // served, and now cached
  clock.advance(hourMs - 1);
  await chat(openai); // the last millisecond before expiry
  const before = await moneyOf(database, accountId);
  clock.advance(1);
  const expired = await refusal(chat(openai));
  t.deepEqual(expired, {
    status: 401,
    code: 'api_key_expired',
    type: 'authentication_error',
    message: `401 This API key expired at ${new Date(apiKey.expiresAt!).toISOString()}. Give it a later expiry on the API keys page of the cabinet, or use another key.`,
  });
  const history = await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } });
  t.is(history.status, 401);
  t.is(((await history.json()) as any).error.code, 'api_key_expired');
  t.deepEqual(await moneyOf(database, accountId), before, 'nothing held or charged');
});

testOnBackends('a model allowlist: other models are 403 model_not_allowed on all three dialects; ids and globs pass', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const { key } = await gateway.services.apiKeys.create({ accountId, models: ['sim/*', 'openai/chat'] });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  t.is((await chat(openai, 'sim/chat')).model, 'sim/chat');
  t.is((await chat(openai, 'sim/reasoning')).model, 'sim/reasoning');
  t.is((await chat(openai, 'openai/chat')).model, 'openai/chat');
  const before = await moneyOf(database, accountId);
  const message = "This API key may not use the model 'anthropic/chat'. Its models: sim/*, openai/chat.";
  t.deepEqual(await refusal(chat(openai, 'anthropic/chat')), { status: 403, code: 'model_not_allowed', type: 'permission_error', message: `403 ${message}` });
  t.like(await refusal(openai.responses.create({ model: 'anthropic/chat', input: 'hi' })), { status: 403, code: 'model_not_allowed', message: `403 ${message}` });
  const messages = await refusal(anthropic.messages.create({ model: 'anthropic/chat', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }));
  t.is(messages.status, 403);
  t.is(messages.type, 'permission_error');
  t.regex(messages.message, /may not use the model 'anthropic\/chat'/);
  t.deepEqual(await moneyOf(database, accountId), before, 'nothing held or charged');
});

testOnBackends('an IP allowlist is checked against the TCP peer: 403 ip_not_allowed from elsewhere, served from inside', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const outside = await gateway.services.apiKeys.create({ accountId, allowedIps: ['10.0.0.0/8', '2001:db8::/32'] });
  const inside = await gateway.services.apiKeys.create({ accountId, allowedIps: ['203.0.113.7', '127.0.0.0/8'] });
  const before = await moneyOf(database, accountId);
  const refused = await refusal(chat(new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: outside.key, maxRetries: 0, defaultHeaders: { 'x-forwarded-for': '10.1.2.3' } })));
  t.deepEqual(refused, { status: 403, code: 'ip_not_allowed', type: 'permission_error', message: '403 This API key may not be used from 127.0.0.1.' }, 'X-Forwarded-For is not trusted');
  t.deepEqual(await moneyOf(database, accountId), before);
  t.is((await chat(new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: inside.key, maxRetries: 0 }))).model, 'sim/chat');
});

testOnBackends('behind a trusted proxy (server.trusted_proxies) the allowlist is checked against the client it forwards', async (t, database) => {
  const gateway = await startChatGateway(t, database, { server: { trusted_proxies: ['127.0.0.1'] } });
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const { key } = await gateway.services.apiKeys.create({ accountId, allowedIps: ['203.0.113.7'] });
  const from = (forwarded: string) => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0, defaultHeaders: { 'x-forwarded-for': forwarded } });
  t.is((await chat(from('198.51.100.9, 203.0.113.7'))).model, 'sim/chat', 'the entry the proxy appended is the client');
  const before = await moneyOf(database, accountId);
  t.deepEqual(await refusal(chat(from('203.0.113.7, 198.51.100.9'))), {
    status: 403,
    code: 'ip_not_allowed',
    type: 'permission_error',
    message: '403 This API key may not be used from 198.51.100.9.',
  }, 'a spoofed entry left of the real one is not believed');
  t.deepEqual(await moneyOf(database, accountId), before, 'nothing held or charged');
});

testOnBackends('keys update by the CLI while the key is cached: the very next request sees the new models, expiry and addresses', async (t, database) => {
  const clock = testClock();
  const gateway = await startChatGateway(t, database, { now: clock.now });
  const { accountId, key, keyId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  await chat(openai, 'openai/chat'); // cached
  const env = cliEnv(database);

  const updated = await runCliJson(['keys', 'update', keyId, '--models', 'sim/*'], env);
  t.deepEqual(updated.models, ['sim/*']);
  t.deepEqual(updated.changed, ['models']);
  t.like(await refusal(chat(openai, 'openai/chat')), { status: 403, code: 'model_not_allowed' });
  t.is((await chat(openai, 'sim/chat')).model, 'sim/chat', 'the refreshed key still serves what it allows');

  await runCliJson(['keys', 'update', keyId, '--allow-ips', '10.0.0.0/8'], env);
  t.like(await refusal(chat(openai, 'sim/chat')), { status: 403, code: 'ip_not_allowed' });
  await runCliJson(['keys', 'update', keyId, '--allow-ips', 'any', '--expires', '2h'], env);
  t.is((await chat(openai, 'sim/chat')).model, 'sim/chat');
  clock.advance(3 * hourMs); // the CLI read the real clock; the gateway's starts from it
  t.like(await refusal(chat(openai, 'sim/chat')), { status: 401, code: 'api_key_expired' });
  await runCliJson(['keys', 'update', keyId, '--expires', 'never'], env);
  t.is((await chat(openai, 'sim/chat')).model, 'sim/chat');

  const audit = await runCliJson(['audit', 'ls', '--account', accountId], env);
  t.deepEqual(
    audit.data.map((row: any) => [row.action, row.target, Object.keys(row.details.changes)]),
    [
      ['key.update', keyId, ['expires_at']],
      ['key.update', keyId, ['expires_at', 'allowed_ips']],
      ['key.update', keyId, ['allowed_ips']],
      ['key.update', keyId, ['models']],
    ],
  );
  const bad = await runCli(['keys', 'update', keyId, '--allow-ips', '10.0.0.300', '--json'], env);
  t.is(bad.exitCode, 1);
  t.deepEqual(JSON.parse(bad.stdout || bad.stderr), {
    error: { code: 'invalid_argument', message: '--allow-ips: "10.0.0.300" is not an IPv4/IPv6 address or CIDR block (10.0.0.0/8, 203.0.113.7, 2001:db8::/32)' },
  });
});

testOnBackends('a budget: 6 concurrent requests against a budget for 3 — exactly 3 pass, 3 are 402 key_budget_exceeded, spend = charges', async (t, database) => {
  const clock = testClock();
  const gateway = await startChatGateway(t, database, { now: clock.now });
  const { accountId, key, keyId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const content = 'Hi [[sim:ttfb=1500]]'; // every hold is placed before any request settles
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  // The worst case one such request holds, learnt from a key without a budget.
  await chat(openai, 'openai/chat', content);
  const probe = (await database.db('holds').where({ account_id: accountId }).first()) as { amount_units: unknown };
  const holdUnits = BigInt(probe.amount_units as string);
  const budgetUnits = 3n * holdUnits + holdUnits / 2n;
  const budgetRub = `${budgetUnits / 10_000n}.${String(budgetUnits % 10_000n).padStart(4, '0')}`;
  await runCliJson(['keys', 'update', keyId, '--budget', budgetRub, '--budget-period', 'day'], cliEnv(database));
  const balanceBefore = (await gateway.services.ledger.balance(accountId)).balanceUnits;

  const results = await Promise.allSettled(Array.from({ length: 6 }, () => chat(openai, 'openai/chat', content)));
  const passed = results.filter((r) => r.status === 'fulfilled');
  const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  t.is(passed.length, 3);
  t.is(refused.length, 3);
  for (const { reason } of refused) {
    t.true(reason instanceof OpenAI.APIError);
    t.is(reason.status, 402);
    t.is(reason.code, 'key_budget_exceeded');
  }
  const holds = await database.db('holds').where({ budget_key_id: keyId });
  t.is(holds.length, 3, 'a refused request places no hold');
  t.is(Number((await database.db('holds').where({ account_id: accountId }).count({ n: '*' }).first())!.n), 4, 'the probe and the three');
  const charges = -BigInt((await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).where('hold_id', 'in', holds.map((h) => h.id)).sum({ s: 'amount_units' }).first())!.s);
  t.is((await gateway.services.ledger.balance(accountId)).balanceUnits, balanceBefore - charges);
  const shown = await runCliJson(['keys', 'show', keyId], cliEnv(database));
  t.is(shown.budget_spent_rub, `${charges / 10_000n}.${String(charges % 10_000n).padStart(4, '0')}`, 'the spend is what was charged (the holds settled to it)');
  await assertLedgerInvariants(t, database.db);
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  t.true(metrics.split('\n').includes('gateway_refusals_total{reason="budget"} 3'), 'the refusals are counted by reason');

  // The next UTC day is a new period.
  const next = new Date(clock.now());
  clock.advance(Date.UTC(next.getUTCFullYear(), next.getUTCMonth(), next.getUTCDate() + 1) - clock.now());
  t.is((await chat(openai, 'openai/chat')).model, 'openai/chat');
});
