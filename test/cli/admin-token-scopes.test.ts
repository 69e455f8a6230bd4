// `gateway admin tokens create --scopes` through the real binary (issue 30 item 2), on both
// databases: the scopes stored in canonical order, shown by create and `admin tokens ls` (text
// and --json), audited with the token; the token then opens over HTTP its scopes' routes only;
// an unknown or empty scope list is refused with the catalog's invalid_argument, nothing made.
import { hostname, userInfo } from 'node:os';
import test from 'ava';
import { testOnBackends } from '../helpers/backends.js';
import { cliEnv, runCli, runCliJson } from '../helpers/cli.js';
import { startGateway } from '../helpers/gateway.js';

testOnBackends('admin tokens create --scopes: stored, listed and audited with the token, which opens only its scopes\' routes over HTTP; bad lists refused', async (t, database) => {
  t.timeout(170_000);
  const env = cliEnv(database);
  const actor = `cli:${userInfo().username}@${hostname()}`;
  const gateway = await startGateway(t, database);
  await gateway.services.accounts.create('acme');

  // Given in any order, with spaces: kept in canonical order, once each.
  const created = await runCliJson(['admin', 'tokens', 'create', '--name', 'billing', '--scopes', 'money, read,money'], env);
  t.deepEqual(Object.keys(created).sort(), ['created_at', 'created_by', 'id', 'last4', 'last_used_at', 'name', 'prefix', 'revoked_at', 'scopes', 'token']);
  t.deepEqual(created.scopes, ['read', 'money']);
  const get = (path: string) => fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${created.token}` } });
  t.is((await get('/admin/v1/accounts')).status, 200, 'read');
  const topup = await fetch(`${gateway.url}/admin/v1/accounts/acme/topup`, { method: 'POST', headers: { authorization: `Bearer ${created.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ amount_rub: '3' }) });
  t.is(topup.status, 200, 'money');
  const secret = await get('/admin/v1/accounts/acme');
  t.is(secret.status, 403, 'the webhook secret needs admin');
  t.deepEqual(await secret.json(), {
    error: {
      message: 'This admin token lacks the "admin" scope that GET /admin/v1/accounts/:id needs (its scopes: read, money). Create a token with --scopes admin (gateway admin tokens create).',
      type: 'permission_error',
      param: null,
      code: 'admin_scope_missing',
    },
  });

  // As text: the secret, then the token with its scopes and what it opens.
  const text = await runCli(['admin', 'tokens', 'create', '--name', 'reader', '--scopes', 'read'], env);
  t.is(text.exitCode, 0, text.stderr);
  const [secretLine, blank, described, note] = text.stdout.trimEnd().split('\n');
  t.regex(secretLine!, /^gwa_[A-Za-z0-9_-]{43}$/);
  t.is(blank, '');
  t.regex(described!, /^admin token adm_\S+ \(reader\), scopes read\.$/);
  t.is(note, "This is the only time the token is shown: store it now. It opens the admin API's read routes only.");

  const listed = await runCliJson(['admin', 'tokens', 'ls'], env);
  t.deepEqual(listed.data.map((row: any) => [row.name, row.scopes]), [['billing', ['read', 'money']], ['reader', ['read']]]);
  const table = await runCli(['admin', 'tokens', 'ls'], env);
  t.is(table.exitCode, 0, table.stderr);
  const [header, first, second] = table.stdout.trimEnd().split('\n');
  t.deepEqual(header!.split(/\s+/), ['ID', 'NAME', 'TOKEN', 'SCOPES', 'STATUS', 'CREATED_BY', 'CREATED_AT', 'LAST_USED_AT']);
  t.is(first!.split(/\s+/)[3], 'read,money');
  t.is(second!.split(/\s+/)[3], 'read');

  for (const [scopes, message] of [
    ['read,everything', 'unknown admin scope "everything"; choose from read, accounts, keys, money, admin'],
    [' , ', 'no scopes given; choose from read, accounts, keys, money, admin'],
  ] as const) {
    const refused = await runCli(['admin', 'tokens', 'create', '--name', 'bad', '--scopes', scopes, '--json'], env);
    t.is(refused.exitCode, 1, scopes);
    t.deepEqual(JSON.parse(refused.stderr), { error: { code: 'invalid_argument', message } });
  }
  t.is(Number((await database.db('admin_tokens').count({ n: '*' }).first())!.n), 2, 'nothing made by a refused list');

  const audit = await database.db('audit_log').where({ action: 'admin_token.create' }).orderBy('id');
  t.deepEqual(audit.map((row: any) => [row.actor, row.target, JSON.parse(row.details)]), [
    [actor, created.id, { name: 'billing', scopes: ['read', 'money'] }],
    [actor, listed.data[1].id, { name: 'reader', scopes: ['read'] }],
  ]);
});

test('admin tokens create --help names the scopes and what each opens', async (t) => {
  const help = await runCli(['admin', 'tokens', 'create', '--help'], cliEnv());
  t.is(help.exitCode, 0, help.stderr);
  t.regex(help.stdout, /--scopes=<value>\s+comma-separated admin scopes \(default: all of\s+read,accounts,keys,money,admin\)/);
  for (const scope of ['read (every GET that reveals no secret)', 'money (top up, adjust, cancel jobs)', 'admin (read secrets']) t.true(help.stdout.replace(/\s+/g, ' ').includes(scope), scope);
});
