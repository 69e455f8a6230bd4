// An account's members over HTTP (docs/cabinet.md, "Members"): an owner invites by email (no
// `email` here, so the answer carries the link), a stranger joins with a password and a
// logged-in user joins as themselves; roles change, members are removed (their sessions on the
// account end), an account keeps one owner; a member gets 403 owner_required on every route the
// route table marks `owner`, and nothing changes; every change is audited with its user.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parse } from 'yaml';
import { readAudit } from '../../src/audit/audit-log.js';
import { routeTable } from '../../src/http/route-table.js';
import { testOnBackends } from '../helpers/backends.js';
import { loginAs } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';
import { newMember, userLogin } from '../helpers/users.js';

interface Browser {
  readonly cookie: string;
  readonly csrf: string;
}

async function call(gateway: TestGateway, browser: Browser | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; cookie: string | undefined }> {
  const headers: Record<string, string> = browser === undefined ? {} : { cookie: browser.cookie, 'x-csrf-token': browser.csrf };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gateway.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text), cookie: response.headers.getSetCookie()[0]?.split(';')[0] };
}

const tokenOf = (link: string) => link.split('#token=')[1]!;

testOnBackends('an owner invites a stranger, who joins with a password; the link works once; the audit names each user', async (t, database) => {
  const clock = testClock();
  const gateway = await startGateway(t, database, { now: clock.now });
  const { accountId } = await gateway.newClient();
  const owner = await newMember(gateway.services, { accountId, role: 'owner', email: 'boss@example.test' });
  const ownerBrowser = await userLogin(gateway.services, { accountId, userId: owner.id });

  const invited = await call(gateway, ownerBrowser, 'POST', '/cabinet/api/members/invite', { email: ' New.Person@Example.test ', role: 'member' });
  t.is(invited.status, 201);
  const expiresAt = new Date(clock.now() + 3_600_000).toISOString();
  t.deepEqual({ ...invited.body, link: undefined }, { email: 'new.person@example.test', role: 'member', expires_at: expiresAt, emailed: false, link: undefined });
  t.regex(invited.body.link, /^http:\/\/[^/]+\/cabinet\/join#token=gwe_[\w-]+$/);

  const listedBefore = await call(gateway, ownerBrowser, 'GET', '/cabinet/api/members');
  t.is(listedBefore.status, 200);
  t.deepEqual(listedBefore.body.invitations.map((invitation: any) => [invitation.email, invitation.role, invitation.expires_at]), [['new.person@example.test', 'member', expiresAt]]);

  // A stranger needs a password; a wrong token is refused before any work.
  const token = tokenOf(invited.body.link);
  t.like(await call(gateway, undefined, 'POST', '/cabinet/api/join', { token }), { status: 422, body: { error: { code: 'validation_error', param: 'password' } } });
  t.like(await call(gateway, undefined, 'POST', '/cabinet/api/join', { token: 'gwe_wrong', password: 'a long password' }), { status: 401, body: { error: { code: 'join_link_invalid' } } });

  const joined = await call(gateway, undefined, 'POST', '/cabinet/api/join', { token, password: 'a long password', name: 'New Person', locale: 'ru' });
  t.is(joined.status, 200);
  t.like(joined.body, { account: { id: accountId }, role: 'member', new_user: true, session: { kind: 'account', account: { id: accountId }, role: 'member', method: 'password' } });
  const memberId = joined.body.session.user.id;
  t.deepEqual(joined.body.session.accounts, [{ id: accountId, name: joined.body.account.name, role: 'member' }]);
  t.regex(joined.cookie!, /^gateway_session=gws_/);
  const memberBrowser = { cookie: joined.cookie!, csrf: joined.body.session.csrf_token };

  // Once only.
  t.like(await call(gateway, undefined, 'POST', '/cabinet/api/join', { token, password: 'another password' }), { status: 401, body: { error: { code: 'join_link_invalid' } } });

  // The new member sees the list (no invitation left), and the user is as invited: no account of their own, no money made.
  const listed = await call(gateway, memberBrowser, 'GET', '/cabinet/api/members');
  t.is(listed.status, 200);
  t.deepEqual(
    listed.body.data.map((member: any) => [member.user_id, member.email, member.name, member.role, member.you]),
    [
      [owner.id, 'boss@example.test', null, 'owner', false],
      [memberId, 'new.person@example.test', 'New Person', 'member', true],
    ],
  );
  t.deepEqual(listed.body.invitations, []);
  const user = await gateway.services.users.users.find(memberId);
  t.like(user, { email: 'new.person@example.test', emailVerifiedAt: null, hasPassword: true, locale: 'ru' }); // no `email`: the link went by hand
  t.deepEqual((await gateway.services.users.members.ofUser(memberId)).map((membership) => membership.accountId), [accountId]);
  t.is((await gateway.services.accounts.find(accountId)).balanceUnits, 0n);

  const audit = (await readAudit(gateway.services.db, { accountId, limit: 20 })).filter((row) => row.action.startsWith('member.'));
  t.deepEqual(
    audit.map((row) => [row.action, row.actor, row.target, row.details]),
    [
      ['member.join', `user:${memberId}`, memberId, { role: 'member', invited_by: `user:${owner.id}`, new_user: true }],
      ['member.invite', `user:${owner.id}`, 'new.person@example.test', { email: 'new.person@example.test', role: 'member' }],
    ],
  );
  t.false(JSON.stringify(await readAudit(gateway.services.db, { limit: 50 })).includes(token), 'no link in the audit log');
});

testOnBackends('an expired invitation is refused; inviting a member again is 409 already_member', async (t, database) => {
  const clock = testClock();
  const gateway = await startGateway(t, database, { now: clock.now });
  const { accountId } = await gateway.newClient();
  const owner = await newMember(gateway.services, { accountId, role: 'owner', email: 'owner-expiry@example.test' });
  const ownerBrowser = await userLogin(gateway.services, { accountId, userId: owner.id });
  t.like(await call(gateway, ownerBrowser, 'POST', '/cabinet/api/members/invite', { email: 'owner-expiry@example.test', role: 'owner' }), { status: 409, body: { error: { code: 'already_member' } } });
  t.like(await call(gateway, ownerBrowser, 'POST', '/cabinet/api/members/invite', { email: 'not an address', role: 'member' }), { status: 422, body: { error: { param: 'email' } } });
  t.like(await call(gateway, ownerBrowser, 'POST', '/cabinet/api/members/invite', { email: 'x@example.test', role: 'admin' }), { status: 422, body: { error: { param: 'role' } } });

  const invited = await call(gateway, ownerBrowser, 'POST', '/cabinet/api/members/invite', { email: 'late@example.test', role: 'member' });
  clock.advance(3_600_000);
  t.like(await call(gateway, undefined, 'POST', '/cabinet/api/join', { token: tokenOf(invited.body.link), password: 'a long password' }), { status: 401, body: { error: { code: 'join_link_invalid' } } });
  t.is((await gateway.services.users.users.findByEmail('late@example.test')), undefined);
  t.deepEqual((await call(gateway, ownerBrowser, 'GET', '/cabinet/api/members')).body.invitations, []);
});

testOnBackends('a logged-in user joins as themselves and switches between their accounts; a stranger cannot take an existing address', async (t, database) => {
  const gateway = await startGateway(t, database);
  const home = await gateway.newClient();
  const shared = await gateway.newClient();
  const user = await newMember(gateway.services, { accountId: home.accountId, role: 'owner', email: 'traveller@example.test' });
  const sharedOwner = await newMember(gateway.services, { accountId: shared.accountId, role: 'owner' });
  const ownerBrowser = await userLogin(gateway.services, { accountId: shared.accountId, userId: sharedOwner.id });
  const userBrowser = await userLogin(gateway.services, { accountId: home.accountId, userId: user.id });

  // An invitation to the user's own address, followed without a session: they must log in.
  const first = await call(gateway, ownerBrowser, 'POST', '/cabinet/api/members/invite', { email: 'traveller@example.test', role: 'owner' });
  const firstToken = tokenOf(first.body.link);
  t.like(await call(gateway, undefined, 'POST', '/cabinet/api/join', { token: firstToken, password: 'taking it over' }), { status: 409, body: { error: { code: 'join_login_required' } } });
  t.is((await gateway.services.users.users.findByEmail('traveller@example.test'))!.passwordHash, null, 'the password was not set');

  // Logged in: without the CSRF token refused, with it joined; the link stayed valid until then.
  t.like(await call(gateway, { cookie: userBrowser.cookie, csrf: 'wrong' }, 'POST', '/cabinet/api/join', { token: firstToken }), { status: 403, body: { error: { code: 'csrf_token_invalid' } } });
  const joined = await call(gateway, userBrowser, 'POST', '/cabinet/api/join', { token: firstToken });
  t.is(joined.status, 200);
  t.like(joined.body, { account: { id: shared.accountId }, role: 'owner', new_user: false, session: { account: { id: home.accountId }, role: 'owner' } });
  t.deepEqual(joined.body.session.accounts.map((account: any) => [account.id, account.role]), [
    [home.accountId, 'owner'],
    [shared.accountId, 'owner'],
  ]);
  t.is(joined.cookie, undefined, 'the session stays where it is');

  // A second invitation to an account they are in: refused, the link unspent.
  const second = await call(gateway, ownerBrowser, 'POST', '/cabinet/api/members/invite', { email: 'someone.else@example.test', role: 'member' });
  t.like(await call(gateway, userBrowser, 'POST', '/cabinet/api/join', { token: tokenOf(second.body.link) }), { status: 409, body: { error: { code: 'already_member' } } });

  // Switching: a new session on the other account, the old one ended; not a member: 404.
  t.like(await call(gateway, userBrowser, 'POST', '/cabinet/api/session/account', { account_id: (await gateway.newClient()).accountId }), { status: 404, body: { error: { code: 'not_found', param: 'account_id' } } });
  const switched = await call(gateway, userBrowser, 'POST', '/cabinet/api/session/account', { account_id: shared.accountId });
  t.is(switched.status, 200);
  t.like(switched.body, { kind: 'account', account: { id: shared.accountId }, user: { id: user.id }, role: 'owner', method: 'password' });
  t.not(switched.body.csrf_token, userBrowser.csrf);
  t.like(await call(gateway, userBrowser, 'GET', '/cabinet/api/session'), { status: 401, body: { error: { code: 'session_required' } } });
  const switchedBrowser = { cookie: switched.cookie!, csrf: switched.body.csrf_token };
  t.like(await call(gateway, switchedBrowser, 'GET', '/cabinet/api/session'), { status: 200, body: { account: { id: shared.accountId }, role: 'owner' } });

  // A session of an operator's link has no user: it cannot switch.
  const linkBrowser = await loginAs(gateway.url, gateway.services, { account: home.accountId });
  t.like(await call(gateway, linkBrowser, 'POST', '/cabinet/api/session/account', { account_id: shared.accountId }), { status: 403, body: { error: { code: 'forbidden' } } });
  t.like(await call(gateway, linkBrowser, 'GET', '/cabinet/api/session'), { status: 200, body: { accounts: [], role: 'owner' } });
});

testOnBackends('roles change and members are removed, the account keeps one owner, and a removed member is logged out of it', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { accountId } = await gateway.newClient();
  const owner = await newMember(gateway.services, { accountId, role: 'owner' });
  const member = await newMember(gateway.services, { accountId, role: 'member' });
  const ownerBrowser = await userLogin(gateway.services, { accountId, userId: owner.id });

  t.like(await call(gateway, ownerBrowser, 'POST', `/cabinet/api/members/${owner.id}/role`, { role: 'member' }), { status: 409, body: { error: { code: 'last_owner' } } });
  t.like(await call(gateway, ownerBrowser, 'DELETE', `/cabinet/api/members/${owner.id}`), { status: 409, body: { error: { code: 'last_owner' } } });
  t.like(await call(gateway, ownerBrowser, 'POST', '/cabinet/api/members/usr_unknown/role', { role: 'member' }), { status: 404, body: { error: { code: 'not_found' } } });

  t.deepEqual((await call(gateway, ownerBrowser, 'POST', `/cabinet/api/members/${member.id}/role`, { role: 'owner' })).body, { user_id: member.id, role: 'owner', changed: true });
  t.deepEqual((await call(gateway, ownerBrowser, 'POST', `/cabinet/api/members/${member.id}/role`, { role: 'owner' })).body, { user_id: member.id, role: 'owner', changed: false });
  // Two owners now: the first may step down, and is then a member (owner_required from the next request).
  t.deepEqual((await call(gateway, ownerBrowser, 'POST', `/cabinet/api/members/${owner.id}/role`, { role: 'member' })).body, { user_id: owner.id, role: 'member', changed: true });
  t.like(await call(gateway, ownerBrowser, 'POST', `/cabinet/api/members/${owner.id}/role`, { role: 'owner' }), { status: 403, body: { error: { code: 'owner_required' } } });

  const newOwnerBrowser = await userLogin(gateway.services, { accountId, userId: member.id });
  t.like(await call(gateway, ownerBrowser, 'GET', '/cabinet/api/session'), { status: 200, body: { role: 'member' } });
  t.deepEqual((await call(gateway, newOwnerBrowser, 'DELETE', `/cabinet/api/members/${owner.id}`)).body, { user_id: owner.id, removed: true, sessions_ended: 1 });
  t.like(await call(gateway, ownerBrowser, 'GET', '/cabinet/api/overview'), { status: 401, body: { error: { code: 'session_required' } } });
  t.like(await call(gateway, newOwnerBrowser, 'DELETE', `/cabinet/api/members/${member.id}`), { status: 409, body: { error: { code: 'last_owner' } } });
  t.deepEqual((await call(gateway, newOwnerBrowser, 'GET', '/cabinet/api/members')).body.data.map((row: any) => [row.user_id, row.role]), [[member.id, 'owner']]);

  const audit = (await readAudit(gateway.services.db, { accountId, limit: 20 })).filter((row) => row.action.startsWith('member.'));
  t.deepEqual(
    audit.map((row) => [row.action, row.actor, row.target, row.details]),
    [
      ['member.remove', `user:${member.id}`, owner.id, { role: 'member', sessions_ended: 1 }],
      ['member.role', `user:${owner.id}`, owner.id, { from: 'owner', to: 'member' }],
      ['member.role', `user:${owner.id}`, member.id, { from: 'member', to: 'owner' }],
    ],
  );
});

testOnBackends("a member gets 403 owner_required on every owner-only route, and nothing changes; the rest of the cabinet is theirs", async (t, database) => {
  const gateway = await startGateway(t, database);
  const { accountId } = await gateway.newClient({ balanceUnits: 100_000n });
  const owner = await newMember(gateway.services, { accountId, role: 'owner' });
  const member = await newMember(gateway.services, { accountId, role: 'member' });
  const memberBrowser = await userLogin(gateway.services, { accountId, userId: member.id });
  const before = { members: await gateway.services.users.memberships.list(accountId), account: await gateway.services.accounts.find(accountId) };

  const ownerRoutes = routeTable.filter((route) => route.owner);
  t.true(ownerRoutes.length >= 4);
  for (const route of ownerRoutes) {
    const path = route.path.replace(':userId', owner.id);
    const body = route.body === 'json' ? { email: 'someone@example.test', role: 'member' } : undefined;
    const answer = await call(gateway, memberBrowser, route.method, path, route.path.endsWith('/role') ? { role: 'member' } : body);
    t.is(answer.status, 403, `${route.method} ${route.path}`);
    t.is(answer.body.error.code, 'owner_required', `${route.method} ${route.path}`);
  }
  t.deepEqual(await gateway.services.users.memberships.list(accountId), before.members);
  t.deepEqual(await gateway.services.users.memberships.pendingInvitations(accountId), []);
  t.is((await gateway.services.accounts.find(accountId)).webhookSecret, before.account.webhookSecret);
  t.deepEqual((await readAudit(gateway.services.db, { accountId, limit: 50 })).filter((row) => row.actor === `user:${member.id}`), []);

  // What a member may do: read the members, the overview, make a key (audited with their user).
  t.is((await call(gateway, memberBrowser, 'GET', '/cabinet/api/members')).status, 200);
  t.like(await call(gateway, memberBrowser, 'GET', '/cabinet/api/session'), { status: 200, body: { role: 'member', user: { id: member.id } } });
  const key = await call(gateway, memberBrowser, 'POST', '/cabinet/api/keys', { name: 'member key', scopes: ['chat'] });
  t.is(key.status, 201);
  const keyAudit = await readAudit(gateway.services.db, { accountId, action: 'key.create', limit: 5 });
  t.deepEqual(keyAudit.map((row) => [row.actor, row.target]), [[`user:${member.id}`, key.body.id]]);
});

/** The text/plain part of a raw message, decoded (base64 or quoted-printable, as nodemailer chose). */
function plainTextOf(raw: string): string {
  const part = /Content-Type: text\/plain[^\r\n]*\r?\nContent-Transfer-Encoding: ([\w-]+)\r?\n\r?\n([\s\S]*?)(?:\r?\n--|$)/i.exec(raw);
  if (!part) throw new Error(`no text/plain part in ${raw}`);
  const [, encoding, body] = part;
  if (encoding!.toLowerCase() === 'base64') return Buffer.from(body!.replace(/\s/g, ''), 'base64').toString('utf8');
  const bytes = body!.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The Subject header, its encoded words (RFC 2047, B or Q) decoded. */
function subjectOf(raw: string): string {
  const header = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)![1]!.replace(/\r?\n[ \t]/g, ' ');
  return header.replace(/=\?UTF-8\?([BQ])\?([^?]*)\?=\s*/gi, (_, kind: string, data: string) =>
    kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : Buffer.from(data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (__, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
  );
}

/** A local SMTP server (smtp-server) that keeps every message it receives, raw. */
async function smtpInbox(t: { teardown(fn: () => unknown): void }): Promise<{ url: string; messages: { to: string[]; raw: string }[] }> {
  const messages: { to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        messages.push({ to: session.envelope.rcptTo.map((recipient) => recipient.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, messages };
}

testOnBackends('with `email`, the invitation is emailed in the page\'s language and the answer carries no link; the stranger who follows it has a verified address', async (t, database) => {
  const inbox = await smtpInbox(t);
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, database, {
    raw: { ...raw, email: { smtp_url_env: 'GATEWAY_TEST_SMTP_URL', from: 'Gateway <gateway@example.test>' }, cabinet: { ...raw.cabinet, public_url: 'https://gateway.example.test' } },
    env: { GATEWAY_TEST_SMTP_URL: inbox.url },
  });
  const { accountId } = await gateway.newClient();
  const account = await gateway.services.accounts.find(accountId);
  const owner = await newMember(gateway.services, { accountId, role: 'owner' });
  const ownerBrowser = await userLogin(gateway.services, { accountId, userId: owner.id });

  const invited = await call(gateway, ownerBrowser, 'POST', '/cabinet/api/members/invite', { email: 'Colleague@Example.test', role: 'owner', locale: 'ru' });
  t.is(invited.status, 201);
  t.like(invited.body, { email: 'colleague@example.test', role: 'owner', emailed: true, link: null });
  t.is(inbox.messages.length, 1);
  const message = inbox.messages[0]!;
  t.deepEqual(message.to, ['colleague@example.test']);
  const text = plainTextOf(message.raw);
  const link = /https:\/\/gateway\.example\.test\/cabinet\/join#token=(gwe_[\w-]+)/.exec(text);
  t.truthy(link, `the link to the public address is in the email: ${text}`);
  t.true(text.startsWith(`Вас пригласили в аккаунт «${account.name}» на этом AI-шлюзе. Роль: владелец.`), text);
  t.is(subjectOf(message.raw), `Приглашение в аккаунт «${account.name}»`);
  t.false((await readAudit(gateway.services.db, { limit: 20 })).some((row) => JSON.stringify(row).includes(link![1]!)), 'the token is in no audit row');

  const joined = await call(gateway, undefined, 'POST', '/cabinet/api/join', { token: link![1], password: 'a long password' });
  t.is(joined.status, 200);
  t.like(joined.body, { account: { id: accountId, name: account.name }, role: 'owner', new_user: true });
  const user = await gateway.services.users.users.find(joined.body.session.user.id);
  t.is(typeof user.emailVerifiedAt, 'number', 'the link went to the address');
});
