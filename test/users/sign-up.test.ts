// The sign-up transaction (src/users/sign-up.ts), on both databases: a user, their account,
// its owner membership, the spent invite code and the bonus, all or nothing; a code works once
// even when two sign-ups race with it; closed sign-up makes nothing.
import test from 'ava';
import type { Knex } from 'knex';
import { Accounts } from '../../src/accounts/accounts.js';
import { readAudit } from '../../src/audit/audit-log.js';
import { Ledger } from '../../src/billing/ledger.js';
import { AccountMembers } from '../../src/users/account-members.js';
import { InviteInvalidError, Invites } from '../../src/users/invites.js';
import { hashPassword, verifyPassword } from '../../src/users/password.js';
import { accountNameFor, InviteRequiredError, SignupClosedError, SignUps, type SignupMode } from '../../src/users/sign-up.js';
import { Users } from '../../src/users/users.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';

const count = async (db: Knex, table: string) => Number((await db(table).count({ n: '*' }).first())!.n);

function signUpsOn(db: Knex, mode: SignupMode, bonusUnits = 0n) {
  const now = () => 1_000_000;
  const users = new Users(db, now);
  const members = new AccountMembers(db, now);
  const invites = new Invites(db, now);
  const ledger = new Ledger(db, now);
  return { users, members, invites, ledger, signUps: new SignUps(db, mode, bonusUnits, { users, members, accounts: new Accounts(db, now), invites, ledger }, now) };
}

const request = (email: string | null, extra: Record<string, unknown> = {}) => ({ email, emailVerified: false, passwordHash: null, name: null, locale: 'ru' as const, ...extra });

testOnBackends('an open sign-up makes the user, an account they own, and the bonus as one bonus row; the same email twice is refused whole', async (t, { db }) => {
  const { signUps, members, users } = signUpsOn(db, 'open', 502_500n);
  const { user, account } = await signUps.signUp(request(' Ann.Lee@Example.com '));
  t.is(user.email, 'ann.lee@example.com');
  t.is(account.name, 'ann.lee@example.com');
  t.deepEqual(
    (await members.ofUser(user.id)).map((m) => [m.accountId, m.role]),
    [[account.id, 'owner']],
  );
  const rows = await db('ledger_transactions').where({ account_id: account.id });
  t.deepEqual(rows.map((row) => [row.kind, BigInt(row.amount_units), row.description, row.source]), [['bonus', 502_500n, 'sign-up bonus', `signup-bonus:${user.id}`]]);
  t.deepEqual((await readAudit(db, { accountId: account.id, limit: 10 })).map((row) => row.action).sort(), ['account.create', 'balance.topup', 'user.signup']);
  const before = { users: await count(db, 'users'), accounts: await count(db, 'accounts'), ledger: await count(db, 'ledger_transactions') };
  await t.throwsAsync(signUps.signUp(request('ann.lee@example.com')));
  t.deepEqual({ users: await count(db, 'users'), accounts: await count(db, 'accounts'), ledger: await count(db, 'ledger_transactions') }, before, 'nothing of the refused sign-up is kept');
  t.is((await users.findByEmail('ANN.LEE@example.com'))?.user.id, user.id);
  await assertLedgerInvariants(t, db);
});

testOnBackends('closed sign-up makes nothing; invite mode needs a code, which works once, also when two sign-ups race with it', async (t, { db }) => {
  await t.throwsAsync(signUpsOn(db, 'closed').signUps.signUp(request('a@example.com')), { instanceOf: SignupClosedError });
  const { signUps, invites } = signUpsOn(db, 'invite');
  await t.throwsAsync(signUps.signUp(request('b@example.com')), { instanceOf: InviteRequiredError });
  await t.throwsAsync(signUps.signUp(request('b@example.com', { inviteCode: 'gwi_not-a-code' })), { instanceOf: InviteInvalidError });
  t.is(await count(db, 'users'), 0);
  const [made] = await invites.create({ count: 1, expiresAt: null, actor: 'test' });
  const results = await Promise.allSettled([signUps.signUp(request('c@example.com', { inviteCode: made!.code })), signUps.signUp(request('d@example.com', { inviteCode: made!.code }))]);
  t.is(results.filter((result) => result.status === 'fulfilled').length, 1, 'one sign-up spends the code');
  t.is(await count(db, 'users'), 1);
  t.is(await count(db, 'accounts'), 1);
  const [invite] = await invites.list({ all: true });
  t.truthy(invite!.usedAt);
  t.is(invite!.usedBy, (await db('users').first('id')).id);
  await t.throwsAsync(signUps.signUp(request('e@example.com', { inviteCode: made!.code })), { instanceOf: InviteInvalidError });
});

testOnBackends('an account name taken is given a suffix; a name from nothing usable falls back to the user id', async (t, { db }) => {
  await new Accounts(db).create('x@example.com');
  const { signUps } = signUpsOn(db, 'open');
  t.is((await signUps.signUp(request('X@example.com'))).account.name, 'x@example.com-2');
  t.is(accountNameFor(null, 'ab12cd34'), 'ab12cd34');
  t.is(accountNameFor('a+b@example.com', 'h'), 'a-b@example.com');
  t.is(accountNameFor('++', 'h'), 'user-h');
});

test('passwords: scrypt with its parameters in the stored form; the right one verifies, a wrong one and a malformed hash do not', async (t) => {
  const stored = await hashPassword('correct horse battery');
  t.regex(stored, /^scrypt\$N=32768,r=8,p=1\$[\w-]{22}\$[\w-]{43}$/);
  t.true(await verifyPassword('correct horse battery', stored));
  t.false(await verifyPassword('correct horse batterY', stored));
  t.false(await verifyPassword('x', 'plain'));
  t.not(await hashPassword('correct horse battery'), stored, 'a new salt each time');
});
