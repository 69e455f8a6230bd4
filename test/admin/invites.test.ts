// Sign-up invite codes (issue 31): the admin API's /admin/v1/invites over HTTP with an admin
// token (answers as documented, codes shown once, audited with the token), and the invite rule
// of SignUps itself (cabinet.signup: invite): no code refused, a code works once, expired and
// revoked codes refused, a refused sign-up leaves nothing behind. On both databases.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { InviteInvalidError } from '../../src/users/invites.js';
import { InviteRequiredError } from '../../src/users/sign-up.js';
import { testOnBackends } from '../helpers/backends.js';
import { createAdminToken } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';
import { admin, expectAnswer, expectRefusal } from './admin-helpers.js';

const start = Date.parse('2026-11-28T12:00:00Z');

function inviteConfig() {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  raw.cabinet = { ...raw.cabinet, signup: 'invite', signup_bonus: '50.00' };
  return raw;
}

testOnBackends('admin API: invites are created (codes shown once), listed without codes, revoked once; audited with the token', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { raw: inviteConfig(), now: clock.now });
  const { id: tokenId, token } = await createAdminToken(gateway.services);
  const credentials = { token };

  const created = expectAnswer(t, await admin(gateway.url, credentials, 'POST', '/admin/v1/invites', { count: 2, expires: '7d' }), 201, 'POST', '/admin/v1/invites');
  t.is(created.data.length, 2);
  for (const invite of created.data) {
    t.regex(invite.code, /^gwi_[A-Za-z0-9_-]{43}$/);
    t.is(invite.last4, invite.code.slice(-4));
    t.is(invite.status, 'active');
    t.is(invite.created_by, `admin-token:${tokenId}`);
    t.is(invite.created_at, '2026-11-28T12:00:00.000Z');
    t.is(invite.expires_at, '2026-12-05T12:00:00.000Z');
  }
  const defaults = expectAnswer(t, await admin(gateway.url, credentials, 'POST', '/admin/v1/invites'), 201, 'POST', '/admin/v1/invites');
  t.is(defaults.data.length, 1);
  t.is(defaults.data[0].expires_at, '2026-12-28T12:00:00.000Z', 'default: 30 days');

  expectRefusal(t, await admin(gateway.url, credentials, 'POST', '/admin/v1/invites', { count: 0 }), 422, 'validation_error', 'count');
  expectRefusal(t, await admin(gateway.url, credentials, 'POST', '/admin/v1/invites', { expires: 'soon' }), 422, 'validation_error', 'expires');

  const listed = expectAnswer(t, await admin(gateway.url, credentials, 'GET', '/admin/v1/invites'), 200, 'GET', '/admin/v1/invites');
  // Oldest first; those made in one millisecond by id.
  t.deepEqual(
    listed.data.map((invite: any) => invite.id),
    [...created.data.map((invite: any) => invite.id).sort(), defaults.data[0].id],
  );
  t.false(JSON.stringify(listed).includes(created.data[0].code), 'a list never shows a code');

  const [first, second] = [...created.data].sort((a: any, b: any) => a.id.localeCompare(b.id));
  const revoked = expectAnswer(t, await admin(gateway.url, credentials, 'POST', `/admin/v1/invites/${first.id}/revoke`), 200, 'POST', '/admin/v1/invites/:id/revoke');
  t.is(revoked.status, 'revoked');
  t.is(revoked.revoked_at, '2026-11-28T12:00:00.000Z');
  clock.advance(1000);
  const again = expectAnswer(t, await admin(gateway.url, credentials, 'POST', `/admin/v1/invites/${first.id}/revoke`), 200, 'POST', '/admin/v1/invites/:id/revoke');
  t.is(again.revoked_at, '2026-11-28T12:00:00.000Z', 'a second revocation keeps the first time');
  expectRefusal(t, await admin(gateway.url, credentials, 'POST', '/admin/v1/invites/inv_nothing/revoke'), 404, 'not_found');

  // Only those that still work by default; all with all=true.
  t.deepEqual(
    expectAnswer(t, await admin(gateway.url, credentials, 'GET', '/admin/v1/invites'), 200, 'GET', '/admin/v1/invites').data.map((invite: any) => invite.id),
    [second.id, defaults.data[0].id],
  );
  const all = expectAnswer(t, await admin(gateway.url, credentials, 'GET', '/admin/v1/invites?all=true'), 200, 'GET', '/admin/v1/invites');
  t.deepEqual(all.data.map((invite: any) => [invite.id, invite.status]), [[first.id, 'revoked'], [second.id, 'active'], [defaults.data[0].id, 'active']]);

  const audit = await gateway.services.db('audit_log').whereIn('action', ['invite.create', 'invite.revoke']).orderBy('id');
  t.deepEqual(audit.map((row: any) => [row.action, row.target, row.actor]), [
    ...created.data.map((invite: any) => ['invite.create', invite.id, `admin-token:${tokenId}`]),
    ['invite.create', defaults.data[0].id, `admin-token:${tokenId}`],
    ['invite.revoke', first.id, `admin-token:${tokenId}`],
  ]);
});

testOnBackends('invite mode, through SignUps: no code refused, a code works once, expired and revoked codes refused, and a refusal leaves no user, account or money', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { raw: inviteConfig(), now: clock.now });
  const { signUps, invites } = gateway.services.users;
  const [good, expiring, revoked] = await invites.create({ count: 3, expiresAt: start + 3_600_000, actor: 'test' });
  await invites.revoke(revoked!.invite.id, 'test');
  const request = (email: string, inviteCode?: string) => ({ email, emailVerified: false, passwordHash: null, name: null, locale: 'en' as const, inviteCode });

  await t.throwsAsync(signUps.signUp(request('a@example.com')), { instanceOf: InviteRequiredError });
  const { user, account } = await signUps.signUp(request('a@example.com', good!.code));
  t.is(account.balanceUnits, 500_000n);
  await t.throwsAsync(signUps.signUp(request('b@example.com', good!.code)), { instanceOf: InviteInvalidError });
  await t.throwsAsync(signUps.signUp(request('b@example.com', revoked!.code)), { instanceOf: InviteInvalidError });
  clock.advance(3_600_000);
  await t.throwsAsync(signUps.signUp(request('b@example.com', expiring!.code)), { instanceOf: InviteInvalidError });

  const used = (await invites.list({ all: true })).find((invite) => invite.id === good!.invite.id)!;
  t.is(used.usedBy, user.id);
  t.is(used.usedAt, start);
  const count = async (table: string) => Number(((await gateway.services.db(table).count({ n: '*' }).first()) as { n: number | string }).n);
  t.is(await count('users'), 1);
  t.is(await count('accounts'), 1);
  t.is(await count('ledger_transactions'), 1);
  // The expired code stays unused (its sign-up was refused, not spent).
  t.is((await invites.list({ all: true })).find((invite) => invite.id === expiring!.invite.id)!.usedAt, null);
});
