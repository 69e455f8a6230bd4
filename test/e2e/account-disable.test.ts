// A disabled account (issue 18): every key of it is refused with 403 account_disabled on every
// route that takes a key — looked up or taken from the process's cache (the chat routes, whose
// hold re-checks the key and now its account) — with nothing held, charged or sent upstream;
// jobs already running finish and settle; enabling restores the keys.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { routeTable } from '../../src/http/route-table.js';
import { readAudit } from '../../src/audit/audit-log.js';
import { testOnBackends } from '../helpers/backends.js';
import { startChatGateway } from '../helpers/chat-gateway.js';
import { eventually } from '../helpers/eventually.js';
import { api, assertJobMoneySettled, charges, startJobGateway } from '../helpers/jobs.js';

const actor = 'cli:test@host';
const freeModel = { id: 't/free', name: 'free', type: 'text', route: { provider: 'openai', model: 'chat' }, pricing: { per_1m_input_tokens: '0', per_1m_output_tokens: '0' } };

testOnBackends('every route that takes a key refuses a disabled account\'s key with 403 account_disabled; enabling restores it', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  t.is((await api(gateway, key, 'GET', '/v1/history')).status, 200);
  const { changed } = await gateway.services.accounts.setDisabled(accountId, true, { reason: 'unpaid', actor });
  t.true(changed);
  const keyRoutes = routeTable.filter((route) => route.auth === 'key');
  t.true(keyRoutes.length >= 30, `${keyRoutes.length} routes`);
  for (const route of keyRoutes) {
    // A Gemini API route names its model in the path, before its action: /v1beta/models/sim/chat:generateContent.
    const path = route.path.replace('{*model}\\:', 'sim/chat:').replace(/:type/, 'image').replace(/\/:[a-z]+/g, '/1');
    const answer = await api(gateway, key, route.method, path, route.method === 'GET' || route.method === 'DELETE' ? undefined : {});
    t.is(answer.status, 403, `${route.method} ${path}`);
    const error = answer.body.error;
    if (path.startsWith('/v1/messages')) t.is(error.type, 'permission_error', path);
    else if (path.includes('/models/sim/chat:')) t.like(error, { status: 'PERMISSION_DENIED', details: [{ reason: 'account_disabled' }] }, path);
    else t.is(error.code, 'account_disabled', `${route.method} ${path}`);
    t.regex(error.message, /disabled account/, path);
  }
  t.like(await gateway.services.ledger.balance(accountId), { balanceUnits: 1_000_000n, heldUnits: 0n });
  t.false((await gateway.services.accounts.setDisabled(accountId, true, { reason: 'again', actor })).changed, 'disabling twice changes nothing');
  t.true((await gateway.services.accounts.setDisabled(accountId, false, { reason: 'paid', actor })).changed);
  t.is((await api(gateway, key, 'GET', '/v1/history')).status, 200);
  const audit = await readAudit(database.db, { accountId, limit: 10 });
  t.deepEqual(audit.map((entry) => [entry.action, entry.details.reason]), [['account.enable', 'paid'], ['account.disable', 'unpaid']]);
});

type Call = (clients: { openai: OpenAI; anthropic: Anthropic }) => Promise<unknown>;
const chatRoutes: Record<string, Call> = {
  'chat completions': ({ openai }) => openai.chat.completions.create({ model: 'openai/chat', messages: [{ role: 'user', content: 'hi' }] }),
  responses: ({ openai }) => openai.responses.create({ model: 'openai/chat', input: 'hi' }),
  messages: ({ anthropic }) => anthropic.messages.create({ model: 'anthropic/chat', max_tokens: 300, messages: [{ role: 'user', content: 'hi' }] }),
  'a free model (no hold)': ({ openai }) => openai.chat.completions.create({ model: 't/free', messages: [{ role: 'user', content: 'hi' }] }),
};

testOnBackends('a cached key of an account disabled behind the process is refused on its next chat request (403), nothing held or sent upstream; enabled, it is served again', async (t, database) => {
  const gateway = await startChatGateway(t, database, { models: [freeModel] });
  const { accountId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const usageRecords = async () => {
    await gateway.services.usageRecords.flush();
    return Number((await database.db('usage_records').count({ n: '*' }).first())!.n);
  };
  for (const [route, call] of Object.entries(chatRoutes)) {
    const { key } = await gateway.services.apiKeys.create({ accountId });
    const clients = { openai: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 }), anthropic: new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 }) };
    await call(clients); // the key is now in the process's cache
    const usageBefore = await usageRecords();
    const balanceBefore = await gateway.services.ledger.balance(accountId);
    const holdsBefore = Number((await database.db('holds').where({ account_id: accountId }).count({ n: '*' }).first())!.n);
    // As the CLI does from another process: the row only, this process's cache untouched.
    await database.db('accounts').where({ id: accountId }).update({ disabled_at: Date.now() });

    const error = (await t.throwsAsync(call(clients), undefined, route)) as { status?: number; message: string };
    t.is(error.status, 403, route);
    t.regex(error.message, /disabled account/, route);
    t.deepEqual(await gateway.services.ledger.balance(accountId), balanceBefore, `${route}: nothing charged or held`);
    t.is(Number((await database.db('holds').where({ account_id: accountId }).count({ n: '*' }).first())!.n), holdsBefore, `${route}: no hold placed`);
    t.is(await usageRecords(), usageBefore, `${route}: nothing reached an upstream`);

    await database.db('accounts').where({ id: accountId }).update({ disabled_at: null });
    await call(clients); // served again
  }
});

testOnBackends('a video job running when its account is disabled finishes and is charged its quote once', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const created = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'a calm sea [[sim:job-seconds=0.6]]', seconds: 4 });
  t.is(created.status, 200);
  await gateway.services.accounts.setDisabled(client.accountId, true, { reason: null, actor });
  t.is((await api(gateway, client.key, 'GET', `/v1/videos/${created.body.id}`)).status, 403, 'the client cannot look, the job runs on');
  const job = await eventually(async () => {
    const row = await database.db('jobs').where({ id: created.body.id }).first();
    return row.status === 'completed' || row.status === 'failed' ? row : undefined;
  }, { what: 'the job ended', intervalMs: 50 });
  t.is(job.status, 'completed');
  t.deepEqual(await charges(database, client.accountId), [360_000n]);
  await assertJobMoneySettled(t, database, client.accountId);
});
