// PATCH /admin/v1/keys/:id (issue 31) over HTTP with an admin token, on both databases: every
// control changed at once and each alone (what the body leaves out stays), the answer as the
// OpenAPI document publishes it, 422 naming the field, 404, audited (key.update, with what
// changed) with the token as actor; and a change of the model list, the budget and the scopes
// is what the key's very next /v1 call is judged by, though the serving process has the key in
// its cache.
import OpenAI from 'openai';
import { readAudit } from '../../src/audit/audit-log.js';
import { testOnBackends } from '../helpers/backends.js';
import { createAdminToken } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';
import { admin, expectAnswer, expectRefusal } from './admin-helpers.js';

const start = Date.UTC(2026, 10, 26, 9, 0, 0);
const path = '/admin/v1/keys/:id';

testOnBackends('PATCH /admin/v1/keys/:id changes every control, keeps what the body leaves out; 422 naming the field, 404; audited with the token', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { now: clock.now });
  const { id: tokenId, token } = await createAdminToken(gateway.services);
  const call = (method: string, route: string, body?: unknown) => admin(gateway.url, { token }, method, route, body);
  const { accountId, keyId } = await gateway.newClient({ scopes: ['chat'] });

  const everything = {
    name: 'shop backend',
    scopes: ['images', 'chat', 'images'],
    rpm: 30,
    tpm: 20_000,
    max_in_flight: 3,
    expires: '2027-01-31',
    models: ['sim/chat', 'sim/image'],
    allowed_ips: ['127.0.0.1', '10.0.0.0/8'],
    budget_rub: '12.5',
    budget_period: 'week',
  };
  const changed = expectAnswer(t, await call('PATCH', `/admin/v1/keys/${keyId}`, everything), 200, 'PATCH', path);
  t.like(changed, {
    id: keyId,
    account_id: accountId,
    status: 'active',
    name: 'shop backend',
    scopes: ['chat', 'images'],
    rpm: 30,
    tpm: 20_000,
    max_in_flight: 3,
    expires_at: '2027-01-31T00:00:00.000Z',
    models: ['sim/chat', 'sim/image'],
    allowed_ips: ['127.0.0.1', '10.0.0.0/8'],
    budget_rub: '12.5000',
    budget_period: 'week',
  });
  t.deepEqual(changed.changed, ['scopes', 'expires_at', 'models', 'allowed_ips', 'budget_rub', 'budget_period', 'rpm', 'tpm', 'max_in_flight', 'name']);

  // One control alone: a new budget amount keeps the key's period; the rest stays.
  const budgetOnly = expectAnswer(t, await call('PATCH', `/admin/v1/keys/${keyId}`, { budget_rub: '20' }), 200, 'PATCH', path);
  t.like(budgetOnly, { budget_rub: '20.0000', budget_period: 'week', scopes: ['chat', 'images'], rpm: 30, name: 'shop backend' });
  t.deepEqual(budgetOnly.changed, ['budget_rub']);

  // Nulls lift each control.
  const lifted = expectAnswer(
    t,
    await call('PATCH', `/admin/v1/keys/${keyId}`, { name: null, rpm: null, tpm: 0, max_in_flight: null, expires: 'never', models: null, allowed_ips: null, budget_rub: null }),
    200,
    'PATCH',
    path,
  );
  t.like(lifted, { name: null, rpm: null, tpm: null, max_in_flight: null, expires_at: null, models: null, allowed_ips: null, budget_rub: null, budget_period: null, scopes: ['chat', 'images'] });

  for (const [bad, field] of [
    [{ scopes: ['chat', 'admin'] }, 'scopes.1'],
    [{ scopes: [] }, 'scopes'],
    [{ rpm: 0 }, 'rpm'],
    [{ tpm: -1 }, 'tpm'],
    [{ max_in_flight: 1.5 }, 'max_in_flight'],
    [{ expires: 'yesterday' }, 'expires'],
    [{ expires: '2020-01-01' }, 'expires'],
    [{ models: ['sim chat'] }, 'models'],
    [{ allowed_ips: ['10.0.0.0/33'] }, 'allowed_ips'],
    [{ budget_rub: '0' }, 'budget_rub'],
    [{ budget_period: 'year' }, 'budget_period'],
  ] as const) {
    expectRefusal(t, await call('PATCH', `/admin/v1/keys/${keyId}`, bad), 422, 'validation_error', field);
  }
  expectRefusal(t, await call('PATCH', '/admin/v1/keys/key_missing', { rpm: 5 }), 404, 'not_found');

  const audit = await readAudit(gateway.services.db, { accountId, action: 'key.update', limit: 10 });
  t.deepEqual(
    audit.map((row) => [row.actor, row.target]),
    [
      [`admin-token:${tokenId}`, keyId],
      [`admin-token:${tokenId}`, keyId],
      [`admin-token:${tokenId}`, keyId],
    ],
    'three changes, no refusal written',
  );
  t.deepEqual(audit[1]!.details, { changes: { budget_rub: { from: '12.5000', to: '20.0000' } } });
  t.deepEqual((audit[2]!.details as any).changes.scopes, { from: ['chat'], to: ['chat', 'images'] });
});

testOnBackends('a model list, budget and scopes changed by the admin API hold from the key\'s next /v1 call, the key cached or not', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { token } = await createAdminToken(gateway.services);
  const patch = async (keyId: string, body: unknown) => expectAnswer(t, await admin(gateway.url, { token }, 'PATCH', `/admin/v1/keys/${keyId}`, body), 200, 'PATCH', path);
  const { key, keyId } = await gateway.newClient({ balanceUnits: 1_000_000n, scopes: ['chat'] });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const chat = (model = 'sim/chat') => openai.chat.completions.create({ model, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
  const status = (promise: Promise<unknown>) =>
    promise.then(
      () => 200,
      (error: unknown) => (error instanceof OpenAI.APIError ? `${error.status} ${error.code}` : Promise.reject(error)),
    );

  t.is(await status(chat()), 200); // served: now in the serving process's cache
  await patch(keyId, { models: ['sim/reasoning'] });
  t.is(await status(chat()), '403 model_not_allowed');
  t.is(await status(chat('sim/reasoning')), 200);
  await patch(keyId, { models: null, budget_rub: '0.001', budget_period: 'day' });
  t.is(await status(chat()), '402 key_budget_exceeded');
  await patch(keyId, { budget_rub: '1' });
  t.is(await status(chat()), 200);

  // Scopes: taken away, the cached key's next chat is refused; given back, it is served again.
  await patch(keyId, { scopes: ['images'] });
  t.is(await status(chat()), '403 insufficient_scope');
  await patch(keyId, { scopes: ['chat', 'images'], budget_rub: null });
  t.is(await status(chat()), 200);
  t.is((await openai.images.generate({ model: 'sim/image', prompt: 'a cat' })).data!.length, 1);
});
