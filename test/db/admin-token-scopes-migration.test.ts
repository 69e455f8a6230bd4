// Upgrading to admin token scopes (migration 20261128110000) breaks no operator's script: a
// token made before it gets every scope, so it still opens every admin route, the webhook
// secret and money included; a row written without scopes (none of the code's) opens nothing.
import { hashSecret, newSecret } from '../../src/cabinet/secret-tokens.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

const migration = '20261128110000_admin_token_scopes';

testOnBackends('a token made before the scopes migration keeps full power after it; the column defaults to no scope', async (t, database) => {
  const { db } = database;
  await db.migrate.down({ name: migration });
  t.false(await db.schema.hasColumn('admin_tokens', 'scopes'));
  // A token as the release before wrote it.
  const token = newSecret('gwa_');
  await db('admin_tokens').insert({ id: 'adm_old', name: 'old script', prefix: 'gwa_', hash: hashSecret(token), last4: token.slice(-4), created_by: 'cli:ops@box', created_at: 1_700_000_000_000, last_used_at: null, revoked_at: null });
  await db.migrate.up({ name: migration });

  t.deepEqual(await db('admin_tokens').where({ id: 'adm_old' }).first('scopes'), { scopes: 'read,accounts,keys,money,admin' });
  const gateway = await startGateway(t, database);
  const [listed] = await gateway.services.cabinet.adminTokens.list();
  t.deepEqual(listed!.scopes, ['read', 'accounts', 'keys', 'money', 'admin']);
  await gateway.services.accounts.create('acme');
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${gateway.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  t.is((await call('GET', '/admin/v1/accounts/acme')).status, 200, 'admin: the webhook secret');
  t.is((await call('POST', '/admin/v1/accounts/acme/topup', { amount_rub: '1' })).status, 200, 'money');
  t.is((await call('POST', '/admin/v1/accounts/acme/keys', {})).status, 201, 'keys');
  t.is((await call('POST', '/admin/v1/accounts/acme/disable', {})).status, 200, 'accounts');
  t.is((await call('GET', '/admin/v1/audit')).status, 200, 'read');

  // A row written without scopes (the code always writes them) opens nothing.
  const bare = newSecret('gwa_');
  await db('admin_tokens').insert({ id: 'adm_bare', name: 'bare', prefix: 'gwa_', hash: hashSecret(bare), last4: bare.slice(-4), created_by: 'test', created_at: 1_700_000_000_001 });
  const refused = await fetch(`${gateway.url}/admin/v1/accounts`, { headers: { authorization: `Bearer ${bare}` } });
  t.is(refused.status, 403);
  t.is(((await refused.json()) as any).error.code, 'admin_scope_missing');
});
