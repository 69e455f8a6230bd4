// The cabinet's keys and webhook secret over HTTP with a logged-in session: a key created in
// the cabinet works with the official OpenAI SDK against /v1 and its revocation makes the next
// SDK call a 401; scopes are validated; another account's key is a 404; every change is in
// the audit log with the session as its actor.
import OpenAI from 'openai';
import { readAudit } from '../../src/audit/audit-log.js';
import { loginAs, cabinetHeaders, type CabinetLogin } from '../helpers/cabinet.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

function post(gateway: TestGateway, login: CabinetLogin, path: string, body?: unknown): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: cabinetHeaders(login, body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The id of the account's live session (the audit log's actor is `cabinet:<it>`). */
async function sessionId(gateway: TestGateway, accountId: string): Promise<string> {
  const row = await gateway.services.db('cabinet_sessions').where({ account_id: accountId }).whereNull('revoked_at').first('id');
  return row.id;
}

testOnBackends('a key created in the cabinet works with the OpenAI SDK; revoked in the cabinet, the next SDK call is a 401', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });

  const created = await post(gateway, login, '/cabinet/api/keys', { name: 'my app', scopes: ['images', 'chat', 'chat'], rpm: 120, tpm: 90_000, max_in_flight: 2 });
  t.is(created.status, 201);
  t.is(created.headers.get('cache-control'), 'no-store');
  const key = (await created.json()) as any;
  t.regex(key.key, /^[a-z0-9]+-[A-Za-z0-9_-]{43}$/);
  t.like(key, { object: 'api_key', name: 'my app', scopes: ['chat', 'images'], rpm: 120, tpm: 90_000, max_in_flight: 2, purpose: 'api', revoked_at: null, last_used_at: null, last4: key.key.slice(-4) });
  t.is(key.prefix, key.key.split('-')[0]);

  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key.key, maxRetries: 0 });
  const completion = await client.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'Hello!' }] });
  t.is(completion.object, 'chat.completion');
  t.true(completion.choices[0]!.message.content!.length > 0);

  // Listed without its secret; the cabinet key the session acts through is listed too.
  const listed = (await (await fetch(`${gateway.url}/cabinet/api/keys`, { headers: { cookie: login.cookie } })).json()) as any;
  const mine = listed.data.find((entry: any) => entry.id === key.id);
  t.falsy(mine.key);
  t.false(JSON.stringify(listed).includes(key.key));
  t.like(mine, { name: 'my app', scopes: ['chat', 'images'], rpm: 120, tpm: 90_000, max_in_flight: 2, purpose: 'api' });
  t.true(listed.data.some((entry: any) => entry.purpose === 'cabinet' && entry.name === 'cabinet'));

  const revoked = await post(gateway, login, `/cabinet/api/keys/${key.id}/revoke`);
  t.is(revoked.status, 200);
  const revokedKey = (await revoked.json()) as any;
  t.is(revokedKey.id, key.id);
  t.is(typeof revokedKey.revoked_at, 'number');
  const error = await t.throwsAsync(client.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'Hello again' }] }));
  t.true(error instanceof OpenAI.AuthenticationError);
  t.is((error as InstanceType<typeof OpenAI.AuthenticationError>).status, 401);

  const actor = `cabinet:${await sessionId(gateway, accountId)}`;
  const audit = (await readAudit(gateway.services.db, { accountId, limit: 10 })).filter((row) => row.action.startsWith('key.'));
  t.deepEqual(
    audit.map((row) => [row.action, row.actor, row.target]),
    [
      ['key.revoke', actor, key.id],
      ['key.create', actor, key.id],
    ],
  );
  t.like(audit[1]!.details, { name: 'my app', scopes: ['chat', 'images'], rpm: 120, tpm: 90_000, max_in_flight: 2, prefix: key.prefix, last4: key.last4 });
  t.false(JSON.stringify(audit).includes(key.key), 'the secret is never in the audit log');
  // Revoking again changes nothing and writes no second row.
  t.is((await post(gateway, login, `/cabinet/api/keys/${key.id}/revoke`)).status, 200);
  t.is((await readAudit(gateway.services.db, { accountId, action: 'key.revoke', limit: 10 })).length, 1);
});

testOnBackends("another account's key is a 404 in the cabinet, and stays live", async (t, database) => {
  const gateway = await startGateway(t, database);
  const mine = await gateway.newClient();
  const theirs = await gateway.newClient({ balanceUnits: 100_000n });
  const login = await loginAs(gateway.url, gateway.services, { account: mine.accountId });
  for (const id of [theirs.keyId, 'key_does_not_exist']) {
    const response = await post(gateway, login, `/cabinet/api/keys/${id}/revoke`);
    t.is(response.status, 404, id);
    const body = (await response.json()) as any;
    t.is(body.error.code, 'not_found');
    t.is(body.error.message, `No API key found with id '${id}'.`);
  }
  const listed = (await (await fetch(`${gateway.url}/cabinet/api/keys`, { headers: { cookie: login.cookie } })).json()) as any;
  t.false(listed.data.some((entry: any) => entry.id === theirs.keyId));
  const stillLive = await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${theirs.key}` } });
  t.is(stillLive.status, 200);
  t.is((await readAudit(gateway.services.db, { action: 'key.revoke', limit: 10 })).length, 0);
});

testOnBackends('creating a key validates name, scopes, rpm, tpm and max_in_flight: 422 naming the field', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { accountId } = await gateway.newClient();
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  const cases: [unknown, (string | number)[]][] = [
    [{ name: 'x', scopes: ['chat', 'admin'] }, ['body', 'scopes', 1]],
    [{ name: 'x', scopes: [] }, ['body', 'scopes']],
    [{ name: 'x' }, ['body', 'scopes']],
    [{ name: '  ', scopes: ['chat'] }, ['body', 'name']],
    [{ scopes: ['chat'] }, ['body', 'name']],
    [{ name: 'x', scopes: ['chat'], rpm: 0 }, ['body', 'rpm']],
    [{ name: 'x', scopes: ['chat'], rpm: 1.5 }, ['body', 'rpm']],
    [{ name: 'x', scopes: ['chat'], tpm: 0 }, ['body', 'tpm']],
    [{ name: 'x', scopes: ['chat'], tpm: 1_000_000_001 }, ['body', 'tpm']],
    [{ name: 'x', scopes: ['chat'], max_in_flight: 0 }, ['body', 'max_in_flight']],
    [{ name: 'x', scopes: ['chat'], max_in_flight: 2.5 }, ['body', 'max_in_flight']],
  ];
  for (const [body, loc] of cases) {
    const response = await post(gateway, login, '/cabinet/api/keys', body);
    t.is(response.status, 422, JSON.stringify(body));
    t.deepEqual(((await response.json()) as any).detail[0].loc, loc, JSON.stringify(body));
  }
  t.is((await gateway.services.apiKeys.list(accountId)).filter((key) => key.purpose === 'api').length, 1, 'only newClient’s key');
});

testOnBackends('webhook secret: shown, rotated (the old one replaced, audited without the secret)', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { accountId } = await gateway.newClient();
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  const shown = await fetch(`${gateway.url}/cabinet/api/webhook-secret`, { headers: { cookie: login.cookie } });
  t.is(shown.status, 200);
  t.is(shown.headers.get('cache-control'), 'no-store');
  const before = ((await shown.json()) as any).webhook_secret;
  t.is(before, (await gateway.services.accounts.find(accountId)).webhookSecret);
  const rotated = await post(gateway, login, '/cabinet/api/webhook-secret/rotate');
  t.is(rotated.status, 200);
  const after = ((await rotated.json()) as any).webhook_secret;
  t.regex(after, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.not(after, before);
  t.is((await gateway.services.accounts.find(accountId)).webhookSecret, after);
  t.is(((await (await fetch(`${gateway.url}/cabinet/api/webhook-secret`, { headers: { cookie: login.cookie } })).json()) as any).webhook_secret, after);
  const audit = await readAudit(gateway.services.db, { accountId, action: 'webhook_secret.rotate', limit: 10 });
  t.is(audit.length, 1);
  t.is(audit[0]!.actor, `cabinet:${await sessionId(gateway, accountId)}`);
  t.deepEqual(audit[0]!.details, {});
});
