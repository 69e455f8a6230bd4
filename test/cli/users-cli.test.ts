// The operator's users commands through the real binary (issue 31): users ls (all, or one
// account's members), users show, users disable (their cabinet sessions end) and users enable,
// by id or email; JSON on stdout, an unknown user a catalog error with exit 1; audited with the
// CLI user as actor.
import { hostname, userInfo } from 'node:os';
import { Accounts } from '../../src/accounts/accounts.js';
import { readAudit } from '../../src/audit/audit-log.js';
import { AccountMembers } from '../../src/users/account-members.js';
import { Users } from '../../src/users/users.js';
import { testOnBackends } from '../helpers/backends.js';
import { cliEnv, runCli, runCliJson } from '../helpers/cli.js';

testOnBackends('users ls, show, disable and enable through the CLI', async (t, database) => {
  t.timeout(170_000);
  const env = cliEnv(database);
  const actor = `cli:${userInfo().username}@${hostname()}`;
  // Setup in-process (each CLI run is a process start).
  const accounts = new Accounts(database.db);
  const shop = await accounts.create('shop');
  const other = await accounts.create('other');
  // Users are listed by creation time, then id: a clock that moves on between the two inserts
  // keeps the owner first (ids made in the same millisecond order at random).
  let now = Date.now();
  const clock = () => now++;
  const users = new Users(database.db, clock);
  const members = new AccountMembers(database.db, clock);
  const [owner, helper] = await database.db.transaction(async (trx) => {
    const made = [
      await users.insert(trx, { email: 'owner@shop.test', emailVerified: true, passwordHash: null, name: 'Owner', locale: 'ru' }),
      await users.insert(trx, { email: 'helper@other.test', emailVerified: false, passwordHash: null, name: null, locale: 'en' }),
    ];
    await members.add(trx, { accountId: shop.id, userId: made[0]!.id, role: 'owner', createdBy: 'test' });
    await members.add(trx, { accountId: other.id, userId: made[1]!.id, role: 'member', createdBy: 'test' });
    return made;
  });
  const session = await database.db('cabinet_sessions').insert({
    id: 'ses_cli_test', token_hash: 'x'.repeat(64), kind: 'account', account_id: shop.id, user_id: owner!.id, method: 'password', csrf_token: 'csrf', login_link_id: null,
    created_at: Date.now(), last_seen_at: Date.now(), expires_at: Date.now() + 3_600_000, revoked_at: null, user_agent: null, address: null,
  });
  t.truthy(session);

  const listed = await runCliJson(['users', 'ls'], env);
  t.deepEqual(listed.data.map((user: any) => [user.id, user.email, user.email_verified, user.name, user.locale, user.state]), [
    [owner!.id, 'owner@shop.test', true, 'Owner', 'ru', 'enabled'],
    [helper!.id, 'helper@other.test', false, null, 'en', 'enabled'],
  ]);
  t.deepEqual((await runCliJson(['users', 'ls', '--account', 'other'], env)).data.map((user: any) => user.id), [helper!.id]);
  const text = await runCli(['users', 'ls', '--account', 'shop'], env);
  t.is(text.exitCode, 0);
  t.regex(text.stdout, /owner@shop\.test/);
  t.notRegex(text.stdout, /helper@other\.test/);

  const shown = await runCliJson(['users', 'show', 'owner@shop.test'], env);
  t.like(shown, { id: owner!.id, email: 'owner@shop.test' });
  t.deepEqual(shown.memberships.map((membership: any) => [membership.account_id, membership.account_name, membership.role]), [[shop.id, 'shop', 'owner']]);

  t.like(await runCliJson(['users', 'disable', owner!.id], env), { id: owner!.id, state: 'disabled', changed: true });
  t.is((await database.db('cabinet_sessions').where({ id: 'ses_cli_test' }).first()).revoked_at === null, false, 'the session ended');
  t.like(await runCliJson(['users', 'disable', 'OWNER@shop.test'], env), { state: 'disabled', changed: false });
  t.like(await runCliJson(['users', 'enable', 'owner@shop.test'], env), { id: owner!.id, state: 'enabled', disabled_at: null, changed: true });

  const unknown = await runCli(['users', 'disable', 'usr_nobody', '--json'], env);
  t.is(unknown.exitCode, 1);
  t.is(unknown.stdout, '');
  t.deepEqual(JSON.parse(unknown.stderr), { error: { code: 'not_found', message: 'no user "usr_nobody"' } });

  const audit = (await readAudit(database.db, { limit: 10 })).filter((row) => row.action.startsWith('user.'));
  t.deepEqual(audit.map((row) => [row.action, row.actor, row.target]), [
    ['user.enable', actor, owner!.id],
    ['user.disable', actor, owner!.id],
  ]);
});
