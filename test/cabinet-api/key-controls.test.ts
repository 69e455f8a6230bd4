// A key's controls in the cabinet (issue 31) over HTTP with a logged-in session, on both
// databases: a key made with every control the CLI offers (read the CLI's way), then changed by
// PATCH /cabinet/api/keys/:id (CSRF, audited with the session as actor), each change holding
// from the key's next /v1 call; 422 naming the body field; another account's key a 404 and
// left as it was; the cabinet's own key not the customer's to restrict.
import OpenAI from 'openai';
import { readAudit } from '../../src/audit/audit-log.js';
import { testOnBackends } from '../helpers/backends.js';
import { cabinetHeaders, loginAs, type CabinetLogin } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const start = Date.UTC(2026, 10, 26, 9, 0, 0);

function send(gateway: TestGateway, login: CabinetLogin, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method,
    headers: cabinetHeaders(login, body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function sessionActor(gateway: TestGateway, accountId: string): Promise<string> {
  const row = await gateway.services.db('cabinet_sessions').where({ account_id: accountId }).whereNull('revoked_at').first('id');
  return `cabinet:${row.id}`;
}

const status = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: unknown) => (error instanceof OpenAI.APIError ? `${error.status} ${error.code}` : Promise.reject(error)),
  );

testOnBackends('the cabinet makes a key with every control and changes them by PATCH; each change holds from the next /v1 call; audited with the session', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { now: clock.now });
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });

  const created = await send(gateway, login, 'POST', '/cabinet/api/keys', {
    name: 'shop',
    scopes: ['chat', 'images'],
    rpm: 40,
    expires: '30d',
    models: ['sim/chat', 'sim/reasoning'],
    allowed_ips: ['127.0.0.1', '::1'],
    budget_rub: '0.001',
    budget_period: 'day',
  });
  t.is(created.status, 201);
  const key = (await created.json()) as any;
  t.like(key, {
    name: 'shop',
    scopes: ['chat', 'images'],
    rpm: 40,
    tpm: null,
    max_in_flight: null,
    expires_at: Math.floor(start / 1000) + 30 * 86_400,
    models: ['sim/chat', 'sim/reasoning'],
    allowed_ips: ['127.0.0.1', '::1'],
    budget_rub: '0.0010',
    budget_period: 'day',
  });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key.key, maxRetries: 0 });
  const chat = (model = 'sim/chat') => openai.chat.completions.create({ model, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
  t.is(await status(chat()), '402 key_budget_exceeded');

  const changed = await send(gateway, login, 'PATCH', `/cabinet/api/keys/${key.id}`, { budget_rub: '5' });
  t.is(changed.status, 200);
  t.like((await changed.json()) as any, { id: key.id, budget_rub: '5.0000', budget_period: 'day', models: ['sim/chat', 'sim/reasoning'], rpm: 40, name: 'shop' });
  t.is(await status(chat()), 200);

  const narrowed = await send(gateway, login, 'PATCH', `/cabinet/api/keys/${key.id}`, { models: ['sim/reasoning'], scopes: ['chat'], name: 'shop v2', tpm: 50_000, max_in_flight: 2 });
  t.is(narrowed.status, 200);
  t.like((await narrowed.json()) as any, { models: ['sim/reasoning'], scopes: ['chat'], name: 'shop v2', tpm: 50_000, max_in_flight: 2 });
  t.is(await status(chat()), '403 model_not_allowed');
  t.is(await status(chat('sim/reasoning')), 200);

  const lifted = await send(gateway, login, 'PATCH', `/cabinet/api/keys/${key.id}`, { models: null, allowed_ips: null, budget_rub: null, expires: 'never', rpm: null, tpm: null, max_in_flight: null });
  t.like((await lifted.json()) as any, { models: null, allowed_ips: null, budget_rub: null, budget_period: null, expires_at: null, rpm: null, tpm: null, max_in_flight: null });
  t.is(await status(chat()), 200);

  const actor = await sessionActor(gateway, accountId);
  const audit = await readAudit(gateway.services.db, { accountId, action: 'key.update', limit: 10 });
  t.deepEqual(audit.map((row) => [row.actor, row.target]), [
    [actor, key.id],
    [actor, key.id],
    [actor, key.id],
  ]);
  t.deepEqual(audit[2]!.details, { changes: { budget_rub: { from: '0.0010', to: '5.0000' } } });
  t.deepEqual(audit[1]!.details, {
    changes: {
      scopes: { from: ['chat', 'images'], to: ['chat'] },
      models: { from: ['sim/chat', 'sim/reasoning'], to: ['sim/reasoning'] },
      tpm: { from: null, to: 50_000 },
      max_in_flight: { from: null, to: 2 },
      name: { from: 'shop', to: 'shop v2' },
    },
  });

  // Without the session's CSRF token nothing changes.
  const forged = await fetch(`${gateway.url}/cabinet/api/keys/${key.id}`, { method: 'PATCH', headers: { cookie: login.cookie, 'content-type': 'application/json' }, body: JSON.stringify({ budget_rub: '0.0001' }) });
  t.is(forged.status, 403);
  t.is(((await forged.json()) as any).error.code, 'csrf_token_invalid');
  t.is((await gateway.services.apiKeys.find(key.id)).budgetUnits, null);
});

testOnBackends('the cabinet refuses a bad control with 422 naming the body field, on create and on change; another account\'s key is a 404 and stays as it was', async (t, database) => {
  const gateway = await startGateway(t, database);
  const mine = await gateway.newClient();
  const theirs = await gateway.newClient();
  const login = await loginAs(gateway.url, gateway.services, { account: mine.accountId });
  const cases: [Record<string, unknown>, (string | number)[]][] = [
    [{ expires: 'yesterday' }, ['body', 'expires']],
    [{ expires: '2020-01-01' }, ['body', 'expires']],
    [{ models: ['sim chat'] }, ['body', 'models']],
    [{ models: [] }, ['body', 'models']],
    [{ allowed_ips: ['10.0.0.0/33'] }, ['body', 'allowed_ips']],
    [{ budget_rub: 'lots' }, ['body', 'budget_rub']],
    [{ budget_rub: '-1' }, ['body', 'budget_rub']],
    [{ budget_period: 'year' }, ['body', 'budget_period']],
    [{ rpm: 0 }, ['body', 'rpm']],
    [{ scopes: [] }, ['body', 'scopes']],
    [{ scopes: ['chat', 'root'] }, ['body', 'scopes', 1]],
    [{ name: ' ' }, ['body', 'name']],
  ];
  for (const [body, loc] of cases) {
    const createdBody = { name: 'x', scopes: ['chat'], ...body };
    const created = await send(gateway, login, 'POST', '/cabinet/api/keys', createdBody);
    t.is(created.status, 422, `create ${JSON.stringify(body)}`);
    t.deepEqual(((await created.json()) as any).detail[0].loc, loc, `create ${JSON.stringify(body)}`);
    const changed = await send(gateway, login, 'PATCH', `/cabinet/api/keys/${mine.keyId}`, body);
    t.is(changed.status, 422, `change ${JSON.stringify(body)}`);
    t.deepEqual(((await changed.json()) as any).detail[0].loc, loc, `change ${JSON.stringify(body)}`);
  }
  for (const id of [theirs.keyId, 'key_does_not_exist']) {
    const response = await send(gateway, login, 'PATCH', `/cabinet/api/keys/${id}`, { budget_rub: '1' });
    t.is(response.status, 404, id);
    t.deepEqual(((await response.json()) as any).error, { message: `No API key found with id '${id}'.`, type: 'invalid_request_error', param: null, code: 'not_found' });
  }
  t.is((await gateway.services.apiKeys.find(theirs.keyId)).budgetUnits, null, 'their key unchanged');
  t.is((await readAudit(gateway.services.db, { action: 'key.update', limit: 10 })).length, 0, 'nothing refused was written');

  // The key the cabinet acts through is listed, but not the customer's to restrict.
  const listed = (await (await fetch(`${gateway.url}/cabinet/api/keys`, { headers: { cookie: login.cookie } })).json()) as any;
  const cabinetKey = listed.data.find((entry: any) => entry.purpose === 'cabinet');
  const refused = await send(gateway, login, 'PATCH', `/cabinet/api/keys/${cabinetKey.id}`, { scopes: ['chat'] });
  t.is(refused.status, 422);
  t.deepEqual(((await refused.json()) as any).detail[0].loc, ['path', 'id']);
  t.is((await gateway.services.apiKeys.find(cabinetKey.id)).scopes.length, 7);
});
