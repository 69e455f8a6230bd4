// The admin API's users (issue 31): list (all, or one account's members), show with the
// accounts each acts for, disable (their sessions end at once, the accounts keep working for
// the others) and enable; every answer as the OpenAPI document says, audited with the token.
import { readAudit } from '../../src/audit/audit-log.js';
import { testOnBackends } from '../helpers/backends.js';
import { testActor } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';
import { newMember, userLogin } from '../helpers/users.js';
import { admin, expectAnswer, expectRefusal } from './admin-helpers.js';

testOnBackends('GET /admin/v1/users lists users (of one account with ?account=), GET …/:id shows their accounts, never a password', async (t, database) => {
  const clock = testClock();
  const gateway = await startGateway(t, database, { now: clock.now });
  const { token } = await gateway.services.cabinet.adminTokens.create({ name: 'users', scopes: ['accounts'], actor: testActor }).then(({ token }) => ({ token }));
  const shop = await gateway.services.accounts.create('shop');
  const other = await gateway.services.accounts.create('other');
  const owner = await newMember(gateway.services, { accountId: shop.id, role: 'owner', email: 'owner@shop.test' });
  clock.advance(1000);
  const helper = await newMember(gateway.services, { accountId: other.id, role: 'owner', email: 'helper@shop.test' });
  clock.advance(1000);
  await gateway.services.db.transaction((trx) => gateway.services.users.members.add(trx, { accountId: shop.id, userId: helper.id, role: 'member', createdBy: testActor }));

  const all = expectAnswer(t, await admin(gateway.url, { token }, 'GET', '/admin/v1/users'), 200, 'GET', '/admin/v1/users');
  const created = (offset: number) => new Date(owner.createdAt + offset).toISOString();
  t.deepEqual(all, {
    object: 'list',
    has_more: false,
    data: [
      { id: owner.id, email: 'owner@shop.test', email_verified: true, name: null, locale: 'en', has_password: false, state: 'enabled', created_at: created(0), last_login_at: null, disabled_at: null },
      { id: helper.id, email: 'helper@shop.test', email_verified: true, name: null, locale: 'en', has_password: false, state: 'enabled', created_at: created(1000), last_login_at: null, disabled_at: null },
    ],
  });
  const ofOther = expectAnswer(t, await admin(gateway.url, { token }, 'GET', '/admin/v1/users?account=other'), 200, 'GET', '/admin/v1/users');
  t.deepEqual(ofOther.data.map((user: any) => [user.id, user.role]), [[helper.id, 'owner']]);
  const ofShop = expectAnswer(t, await admin(gateway.url, { token }, 'GET', '/admin/v1/users?account=shop'), 200, 'GET', '/admin/v1/users');
  t.deepEqual(ofShop.data.map((user: any) => [user.id, user.role]), [
    [owner.id, 'owner'],
    [helper.id, 'member'],
  ]);
  expectRefusal(t, await admin(gateway.url, { token }, 'GET', '/admin/v1/users?account=nobody'), 404, 'not_found');

  const shown = expectAnswer(t, await admin(gateway.url, { token }, 'GET', `/admin/v1/users/${helper.id}`), 200, 'GET', '/admin/v1/users/:id');
  t.deepEqual(shown.memberships, [
    { account_id: other.id, account_name: 'other', role: 'owner', joined_at: created(1000) },
    { account_id: shop.id, account_name: 'shop', role: 'member', joined_at: created(2000) },
  ]);
  expectRefusal(t, await admin(gateway.url, { token }, 'GET', '/admin/v1/users/usr_nobody'), 404, 'not_found');
});

testOnBackends('disabling a user ends their sessions at once; the account keeps working for its other members; enabling lets them log in again', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { token, adminToken } = await gateway.services.cabinet.adminTokens.create({ name: 'users', scopes: ['accounts'], actor: testActor });
  const { accountId } = await gateway.newClient();
  const owner = await newMember(gateway.services, { accountId, role: 'owner' });
  const member = await newMember(gateway.services, { accountId, role: 'member' });
  const ownerBrowser = await userLogin(gateway.services, { accountId, userId: owner.id });
  const memberBrowser = await userLogin(gateway.services, { accountId, userId: member.id });
  const overview = (browser: { cookie: string }) => fetch(`${gateway.url}/cabinet/api/overview`, { headers: { cookie: browser.cookie } }).then((response) => response.status);
  t.is(await overview(memberBrowser), 200);

  const disabled = expectAnswer(t, await admin(gateway.url, { token }, 'POST', `/admin/v1/users/${member.id}/disable`), 200, 'POST', '/admin/v1/users/:id/disable');
  t.like(disabled, { id: member.id, state: 'disabled', changed: true });
  t.is(typeof disabled.disabled_at, 'string');
  t.is(await overview(memberBrowser), 401);
  t.is(await overview(ownerBrowser), 200);
  t.like(expectAnswer(t, await admin(gateway.url, { token }, 'POST', `/admin/v1/users/${member.id}/disable`), 200, 'POST', '/admin/v1/users/:id/disable'), { state: 'disabled', changed: false });

  const enabled = expectAnswer(t, await admin(gateway.url, { token }, 'POST', `/admin/v1/users/${member.id}/enable`), 200, 'POST', '/admin/v1/users/:id/enable');
  t.like(enabled, { id: member.id, state: 'enabled', disabled_at: null, changed: true });
  t.is(await overview(memberBrowser), 401, 'the ended sessions stay ended');
  t.is(await overview(await userLogin(gateway.services, { accountId, userId: member.id })), 200);
  expectRefusal(t, await admin(gateway.url, { token }, 'POST', '/admin/v1/users/usr_nobody/disable'), 404, 'not_found');

  const audit = (await readAudit(gateway.services.db, { limit: 20 })).filter((row) => row.action.startsWith('user.'));
  t.deepEqual(
    audit.map((row) => [row.action, row.actor, row.target]),
    [
      ['user.enable', `admin-token:${adminToken.id}`, member.id],
      ['user.disable', `admin-token:${adminToken.id}`, member.id],
    ],
  );
});
