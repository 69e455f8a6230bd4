// The cabinet's commands through the real binary, on both databases: `cabinet link` (text and
// --json; the link opens a session over HTTP, once; its creation audited), `admin tokens
// create|ls|revoke` (the secret printed once; a revoked token refused over HTTP from the next
// request; both audited), `cabinet sessions ls|revoke` (by id and by --account), and the
// refusals as catalog errors.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { routeTable, type RouteDefinition } from '../../src/http/route-table.js';
import { testOnBackends } from '../helpers/backends.js';
import { loginAs } from '../helpers/cabinet.js';
import { cliEnv, runCli, runCliJson, startServeProcess } from '../helpers/cli.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';

const adminProbe: RouteDefinition = { method: 'GET', path: '/probe/admin', auth: 'admin', scope: 'read', handler: (ctx) => void (ctx.body = { actor: ctx.state.actor }) };

const login = (url: string, token: string) =>
  fetch(`${url}/cabinet/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });

testOnBackends('cabinet link prints a one-time link (text and --json) that logs in over HTTP once; audited', async (t, database) => {
  t.timeout(170_000);
  const env = cliEnv(database);
  const actor = `cli:${userInfo().username}@${hostname()}`;
  const gateway = await startGateway(t, database);
  const account = await gateway.services.accounts.create('acme');

  // As text: the URL on the first line (the address the running gateway recorded), then what it opens.
  const text = await runCli(['cabinet', 'link', '--account', 'acme'], env);
  t.is(text.exitCode, 0, text.stderr);
  const [url, blank, note] = text.stdout.trimEnd().split('\n');
  t.true(url!.startsWith(`${gateway.url}/cabinet/login#token=`), url);
  t.regex(url!, /\/cabinet\/login#token=gwl_[A-Za-z0-9_-]{43}$/);
  t.is(blank, '');
  t.regex(note!, /^Opens the cabinet of account acme, once, until \d{4}-\d\d-\d\dT[\d:.]+Z\. Send it privately: whoever opens it first is logged in\.$/);
  const token = url!.split('#token=')[1]!;
  const opened = await login(gateway.url, token);
  t.is(opened.status, 200);
  t.like(await opened.json(), { kind: 'account', account: { id: account.id, name: 'acme' } });
  t.is((await login(gateway.url, token)).status, 401, 'once');

  const json = await runCliJson(['cabinet', 'link', '--admin'], env);
  t.deepEqual(Object.keys(json).sort(), ['expires_at', 'path', 'url']);
  t.is(json.url, `${gateway.url}${json.path}`);
  const linkRow = await database.db('login_links').where({ kind: 'admin' }).first();
  t.is(json.expires_at, new Date(Number(linkRow.expires_at)).toISOString());
  t.is(Number(linkRow.expires_at) - Number(linkRow.created_at), 15 * 60_000);
  const adminLogin = await login(gateway.url, json.url.split('#token=')[1]);
  t.like(await adminLogin.json(), { kind: 'admin', account: null });

  const neither = await runCli(['cabinet', 'link', '--json'], env);
  t.not(neither.exitCode, 0, 'an account or --admin is required');
  const unknown = await runCli(['cabinet', 'link', '--account', 'nobody', '--json'], env);
  t.is(unknown.exitCode, 1);
  t.is(JSON.parse(unknown.stderr).error.code, 'not_found');

  const audit = await database.db('audit_log').orderBy('id');
  t.deepEqual(
    audit.map((row: any) => [row.actor, row.action, row.account_id, JSON.parse(row.details).kind]),
    [
      [actor, 'login_link.create', account.id, 'account'],
      [actor, 'login_link.create', null, 'admin'],
    ],
  );
});

testOnBackends('cabinet link points at the port serve runs on, or at cabinet.public_url when set; when neither is known it prints the path and says so', async (t, database) => {
  t.timeout(170_000);
  const env = cliEnv(database);
  await runCliJson(['accounts', 'create', 'acme'], env);
  const unknownNote =
    "The gateway's address is not known: cabinet.public_url is not set and no serve is running on this machine. " +
    'Open this path on the address where the gateway answers (http://HOST:PORT), and set cabinet.public_url in the configuration (e.g. https://gateway.example.com) so that links are printed whole.';

  // Nothing running, no public_url: the path alone, and what to do (not a guess at server.port).
  const unknown = await runCli(['cabinet', 'link', '--account', 'acme'], env);
  t.is(unknown.exitCode, 0, unknown.stderr);
  const [pathLine, , opens, note] = unknown.stdout.trimEnd().split('\n');
  t.regex(pathLine!, /^\/cabinet\/login#token=gwl_[A-Za-z0-9_-]{43}$/);
  t.regex(opens!, /^Opens the cabinet of account acme, once, until /);
  t.is(note, unknownNote);
  const unknownJson = await runCliJson(['cabinet', 'link', '--admin'], env);
  t.is(unknownJson.url, null);
  t.regex(unknownJson.path, /^\/cabinet\/login#token=gwl_[A-Za-z0-9_-]{43}$/);

  // serve on another port than the configured 8080: the link is to where it answers, and opens a session there.
  const serve = await startServeProcess(env);
  t.teardown(() => serve.stop());
  t.not(new URL(serve.url).port, '8080');
  const printed = await runCliJson(['cabinet', 'link', '--account', 'acme'], env);
  t.is(printed.url, `${serve.url}${printed.path}`);
  t.is((await login(serve.url, printed.path.split('#token=')[1])).status, 200);
  const text = await runCli(['cabinet', 'link', '--account', 'acme'], env);
  t.true(text.stdout.startsWith(`${serve.url}/cabinet/login#token=gwl_`), text.stdout);

  // cabinet.public_url set: the operator's address wins over the running serve's.
  const configured = parse(readFileSync(exampleConfigPath, 'utf8'));
  configured.cabinet = { ...configured.cabinet, public_url: 'https://gateway.example.com' };
  const configFile = path.join(mkdtempSync(path.join(tmpdir(), 'gw-link-')), 'gateway.yaml');
  writeFileSync(configFile, stringify(configured));
  const public_ = await runCliJson(['cabinet', 'link', '--admin'], { ...env, GATEWAY_CONFIG: configFile });
  t.is(public_.url, `https://gateway.example.com${public_.path}`);

  // Stopped: its address is forgotten, nothing is known again.
  await serve.stop();
  t.is((await runCliJson(['cabinet', 'link', '--admin'], env)).url, null);
});

testOnBackends('admin tokens create|ls|revoke: the secret once, a revoked token refused over HTTP from the next request; audited', async (t, database) => {
  t.timeout(170_000);
  const env = cliEnv(database);
  const actor = `cli:${userInfo().username}@${hostname()}`;
  const gateway = await startGateway(t, database, { routes: [...routeTable, adminProbe] });

  const created = await runCliJson(['admin', 'tokens', 'create', '--name', 'ci'], env);
  t.regex(created.token, /^gwa_[A-Za-z0-9_-]{43}$/);
  t.like(created, { name: 'ci', prefix: 'gwa_', last4: created.token.slice(-4), created_by: actor, revoked_at: null, last_used_at: null });
  t.deepEqual(created.scopes, ['read', 'accounts', 'keys', 'money', 'admin'], 'no --scopes: every scope');
  const probe = () => fetch(`${gateway.url}/probe/admin`, { headers: { authorization: `Bearer ${created.token}` } });
  t.deepEqual(await (await probe()).json(), { actor: `admin-token:${created.id}` });
  const listed = await runCliJson(['admin', 'tokens', 'ls'], env);
  t.is(listed.object, 'list');
  t.deepEqual(listed.data.map((row: any) => [row.id, row.name, row.revoked_at]), [[created.id, 'ci', null]]);
  t.false(JSON.stringify(listed).includes(created.token), 'ls never shows the secret');
  t.truthy(listed.data[0].last_used_at, 'last use recorded');
  const revoked = await runCliJson(['admin', 'tokens', 'revoke', created.id], env);
  t.is(revoked.id, created.id);
  t.truthy(revoked.revoked_at);
  const refused = await probe();
  t.is(refused.status, 401);
  t.is(((await refused.json()) as any).error.code, 'admin_token_invalid');
  const noToken = await runCli(['admin', 'tokens', 'revoke', 'adm_nothing', '--json'], env);
  t.is(noToken.exitCode, 1);
  t.deepEqual(JSON.parse(noToken.stderr), { error: { code: 'not_found', message: 'no admin token "adm_nothing"' } });
  const badName = await runCli(['admin', 'tokens', 'create', '--name', '!bad', '--json'], env);
  t.is(badName.exitCode, 1);
  t.deepEqual(JSON.parse(badName.stderr), {
    error: { code: 'invalid_argument', message: '"!bad" is not a usable token name: 1-200 letters, digits, spaces or ._@:- , starting with a letter or digit' },
  });

  const audit = await database.db('audit_log').orderBy('id');
  t.deepEqual(audit.map((row: any) => [row.actor, row.action, row.target, JSON.parse(row.details)]), [
    [actor, 'admin_token.create', created.id, { name: 'ci', scopes: ['read', 'accounts', 'keys', 'money', 'admin'] }],
    [actor, 'admin_token.revoke', created.id, { name: 'ci' }],
  ]);
});

testOnBackends('cabinet sessions ls|revoke: by id and by account, refused over HTTP from the next request; audited', async (t, database) => {
  t.timeout(170_000);
  const env = cliEnv(database);
  const actor = `cli:${userInfo().username}@${hostname()}`;
  const gateway = await startGateway(t, database);
  const account = await gateway.services.accounts.create('acme');
  // Logins made in-process (each CLI run is a process start: seconds on a loaded machine).
  const first = await loginAs(gateway.url, gateway.services, { account: 'acme' });
  const operator = await loginAs(gateway.url, gateway.services, { admin: true });
  const second = await loginAs(gateway.url, gateway.services, { account: account.id });
  const sessionOf = (login: { cookie: string }) => fetch(`${gateway.url}/cabinet/api/session`, { headers: { cookie: login.cookie } });

  const sessions = await runCliJson(['cabinet', 'sessions', 'ls'], env);
  t.is(sessions.object, 'list');
  t.deepEqual(sessions.data.map((row: any) => [row.kind, row.account_id, row.account_name, row.status, row.address]), [
    ['account', account.id, 'acme', 'live', '127.0.0.1'],
    ['admin', null, null, 'live', '127.0.0.1'],
    ['account', account.id, 'acme', 'live', '127.0.0.1'],
  ]);
  const [firstSession, adminSession] = sessions.data;
  const one = await runCliJson(['cabinet', 'sessions', 'revoke', adminSession.id], env);
  t.like(one, { id: adminSession.id, status: 'revoked' });
  t.is((await sessionOf(operator)).status, 401);
  t.is((await sessionOf(first)).status, 200);
  const all = await runCliJson(['cabinet', 'sessions', 'revoke', '--account', 'acme'], env);
  t.is(all.data.length, 2);
  t.is((await sessionOf(first)).status, 401);
  t.is((await sessionOf(second)).status, 401);
  t.deepEqual((await runCliJson(['cabinet', 'sessions', 'ls', '--account', 'acme'], env)).data, [], 'none live');
  const ended = await runCliJson(['cabinet', 'sessions', 'ls', '--all'], env);
  t.deepEqual(ended.data.map((row: any) => [row.id, row.status]), sessions.data.map((row: any) => [row.id, 'revoked']));
  const both = await runCli(['cabinet', 'sessions', 'revoke', firstSession.id, '--account', 'acme', '--json'], env);
  t.is(both.exitCode, 1);
  t.deepEqual(JSON.parse(both.stderr), { error: { code: 'invalid_argument', message: 'give a session id or --account, not both' } });

  const audit = await runCliJson(['audit', 'ls', '--action', 'session.revoke'], env);
  t.deepEqual(
    audit.data.map((entry: any) => [entry.actor, entry.target, entry.account_id, entry.details.kind]).reverse(),
    [
      [actor, adminSession.id, null, 'admin'],
      [actor, sessions.data[0].id, account.id, 'account'],
      [actor, sessions.data[2].id, account.id, 'account'],
    ],
  );
});
