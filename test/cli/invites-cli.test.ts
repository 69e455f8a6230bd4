// `gateway invites create / ls / revoke` through the real binary (issue 31): codes printed once
// (JSON and text), lists without codes, a revocation audited with the CLI user; a code the CLI
// made works once for a sign-up in invite mode, and a revoked one does not.
import { hostname, userInfo } from 'node:os';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config/load.js';
import { openServices } from '../../src/services.js';
import { InviteInvalidError } from '../../src/users/invites.js';
import { testOnBackends } from '../helpers/backends.js';
import { cliEnv, runCli, runCliJson } from '../helpers/cli.js';
import { exampleConfigPath } from '../helpers/gateway.js';

testOnBackends('invites create, ls and revoke through the CLI; a printed code makes one account once, a revoked one none', async (t, database) => {
  t.timeout(170_000);
  const env = cliEnv(database);
  const actor = `cli:${userInfo().username}@${hostname()}`;
  const started = Date.now();

  const created = await runCliJson(['invites', 'create', '--count', '2', '--expires', '7d'], env);
  t.is(created.object, 'list');
  t.is(created.has_more, false);
  t.is(created.data.length, 2);
  for (const invite of created.data) {
    t.regex(invite.code, /^gwi_[A-Za-z0-9_-]{43}$/);
    t.is(invite.last4, invite.code.slice(-4));
    t.is(invite.status, 'active');
    t.is(invite.created_by, actor);
    const expires = Date.parse(invite.expires_at) - Date.parse(invite.created_at);
    t.is(expires, 7 * 86_400_000);
    t.true(Date.parse(invite.created_at) >= started - 1000);
  }
  const text = await runCli(['invites', 'create'], env);
  t.is(text.exitCode, 0);
  const [code, blank, summary] = text.stdout.split('\n');
  t.regex(code!, /^gwi_[A-Za-z0-9_-]{43}$/);
  t.is(blank, '');
  t.regex(summary!, /^1 invite code; each makes one account, once; they work until \d{4}-\d{2}-\d{2}T/);

  const listed = await runCliJson(['invites', 'ls'], env);
  t.is(listed.data.length, 3);
  t.false(JSON.stringify(listed).includes(created.data[0].code), 'a list never shows a code');
  const [first, second] = created.data;
  const revoked = await runCliJson(['invites', 'revoke', first.id], env);
  t.is(revoked.status, 'revoked');
  t.deepEqual((await runCliJson(['invites', 'ls'], env)).data.map((invite: any) => invite.id).sort(), listed.data.map((invite: any) => invite.id).filter((id: string) => id !== first.id).sort());
  t.deepEqual((await runCliJson(['invites', 'ls', '--all'], env)).data.find((invite: any) => invite.id === first.id).status, 'revoked');

  const missing = await runCli(['invites', 'revoke', 'inv_nothing', '--json'], env);
  t.is(missing.exitCode, 1);
  t.is(missing.stdout, '');
  t.deepEqual(JSON.parse(missing.stderr), { error: { code: 'not_found', message: 'no invite "inv_nothing"' } });
  const badExpiry = await runCli(['invites', 'create', '--expires', 'soon', '--json'], env);
  t.is(badExpiry.exitCode, 1);
  t.is(JSON.parse(badExpiry.stderr).error.code, 'invalid_argument');

  // The codes at work: invite mode over the same database.
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  raw.cabinet = { ...raw.cabinet, signup: 'invite' };
  const services = openServices(loadConfig({ raw, env: { GATEWAY_DATABASE_URL: database.url, GATEWAY_CACHE_URL: 'memory' } }));
  t.teardown(() => services.close());
  const request = (email: string, inviteCode: string) => ({ email, emailVerified: false, passwordHash: null, name: null, locale: 'en' as const, inviteCode });
  const { user } = await services.users.signUps.signUp(request('a@example.com', second.code));
  await t.throwsAsync(services.users.signUps.signUp(request('b@example.com', second.code)), { instanceOf: InviteInvalidError });
  await t.throwsAsync(services.users.signUps.signUp(request('b@example.com', first.code)), { instanceOf: InviteInvalidError });
  const used = (await runCliJson(['invites', 'ls', '--all'], env)).data.find((invite: any) => invite.id === second.id);
  t.is(used.status, 'used');
  t.is(used.used_by, user.id);

  const audit = await database.db('audit_log').whereIn('action', ['invite.create', 'invite.revoke']).orderBy('id');
  t.deepEqual(audit.map((row: any) => [row.action, row.actor]), [
    ['invite.create', actor],
    ['invite.create', actor],
    ['invite.create', actor],
    ['invite.revoke', actor],
  ]);
});
