// The admin API's accounts, money and keys over HTTP with an admin token (issue 17), on both
// databases: exact answers (checked against the published schemas), 422 naming the field,
// 404 for unknown ids, money exact in the ledger (balance == sum(ledger)), a refused negative
// adjustment writing nothing, and every change in the audit log with the token as its actor.
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { createAdminToken } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';
import { admin, expectAnswer, expectRefusal } from './admin-helpers.js';

const start = Date.UTC(2026, 10, 26, 9, 0, 0);
const startIso = new Date(start).toISOString();

testOnBackends('accounts: create, list, show, top up, adjust (refused past the available money), disable and enable; all audited with the admin token', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { now: clock.now });
  const { id: tokenId, token } = await createAdminToken(gateway.services);
  const as = { token };
  const actor = `admin-token:${tokenId}`;
  const call = (method: string, path: string, body?: unknown) => admin(gateway.url, as, method, path, body);

  const created = expectAnswer(t, await call('POST', '/admin/v1/accounts', { name: 'acme' }), 201, 'POST', '/admin/v1/accounts');
  t.regex(created.id, /^acc_/);
  t.deepEqual(created, {
    id: created.id,
    name: 'acme',
    balance_rub: '0.0000',
    held_rub: '0.0000',
    available_rub: '0.0000',
    created_at: startIso,
    state: 'enabled',
    disabled_at: null,
    disabled_reason: null,
  });
  expectRefusal(t, await call('POST', '/admin/v1/accounts', { name: 'acme' }), 409, 'account_exists', 'name');
  expectRefusal(t, await call('POST', '/admin/v1/accounts', {}), 422, 'validation_error', 'name');
  expectRefusal(t, await call('POST', '/admin/v1/accounts', { name: 'acc_sneaky' }), 422, 'validation_error', 'name');

  const list = expectAnswer(t, await call('GET', '/admin/v1/accounts'), 200, 'GET', '/admin/v1/accounts');
  t.deepEqual(list, { object: 'list', data: [created], has_more: false });
  // By name or by id, as the CLI takes it.
  const shown = expectAnswer(t, await call('GET', '/admin/v1/accounts/acme'), 200, 'GET', '/admin/v1/accounts/:id');
  t.deepEqual(shown, { ...created, webhook_secret: shown.webhook_secret, keys: 0, active_keys: 0 });
  t.regex(shown.webhook_secret, /^whsec_/);
  t.deepEqual((await call('GET', `/admin/v1/accounts/${created.id}`)).body, shown);
  expectRefusal(t, await call('GET', '/admin/v1/accounts/acc_missing'), 404, 'not_found');

  // Money: exact decimal strings in and out.
  const topup = expectAnswer(t, await call('POST', `/admin/v1/accounts/${created.id}/topup`, { amount_rub: '12.5', reason: 'invoice 17' }), 200, 'POST', '/admin/v1/accounts/:id/topup');
  t.deepEqual(topup, { transaction_id: topup.transaction_id, account_id: created.id, kind: 'topup', amount_rub: '12.5000', balance_rub: '12.5000', reason: 'invoice 17', audit_id: topup.audit_id });
  const bonus = expectAnswer(t, await call('POST', '/admin/v1/accounts/acme/topup', { amount_rub: '0.0001', kind: 'bonus' }), 200, 'POST', '/admin/v1/accounts/:id/topup');
  t.like(bonus, { kind: 'bonus', amount_rub: '0.0001', balance_rub: '12.5001', reason: null });
  for (const [amount, why] of [
    [12.5, 'a JSON number: money is a decimal string'],
    ['1.00001', 'finer than 0.0001 RUB'],
    ['-1', 'negative'],
    ['0', 'zero'],
    ['1e3', 'not digits'],
  ] as const) {
    expectRefusal(t, await call('POST', '/admin/v1/accounts/acme/topup', { amount_rub: amount }), 422, 'validation_error', 'amount_rub');
    t.pass(why);
  }
  expectRefusal(t, await call('POST', '/admin/v1/accounts/acme/topup', { amount_rub: '1', kind: 'gift' }), 422, 'validation_error', 'kind');
  expectRefusal(t, await call('POST', '/admin/v1/accounts/acc_missing/topup', { amount_rub: '1' }), 404, 'not_found');

  const adjusted = expectAnswer(t, await call('POST', '/admin/v1/accounts/acme/adjust', { amount_rub: '-2.5001', reason: 'double topup' }), 200, 'POST', '/admin/v1/accounts/:id/adjust');
  t.deepEqual(adjusted, { transaction_id: adjusted.transaction_id, account_id: created.id, kind: 'adjustment', amount_rub: '-2.5001', balance_rub: '10.0000', reason: 'double topup', audit_id: adjusted.audit_id });
  // A running request holds 4 RUB: an adjustment may take the 6 available, not one unit more.
  const hold = await gateway.services.ledger.hold(created.id, 40_000n, { ttlMs: 600_000, requestId: 'req_running' });
  const refused = await call('POST', '/admin/v1/accounts/acme/adjust', { amount_rub: '-6.0001', reason: 'too much' });
  expectRefusal(t, refused, 409, 'adjustment_refused', 'amount_rub');
  t.is(
    refused.body.error.message,
    `refused: an adjustment of -6.0001 RUB would take more than the 6.0000 RUB available to ${created.id} (the balance minus what running requests hold); nothing was written`,
  );
  expectRefusal(t, await call('POST', '/admin/v1/accounts/acme/adjust', { amount_rub: '-1' }), 422, 'validation_error', 'reason');
  expectRefusal(t, await call('POST', '/admin/v1/accounts/acme/adjust', { amount_rub: '-1', reason: '   ' }), 422, 'validation_error', 'reason');
  expectRefusal(t, await call('POST', '/admin/v1/accounts/acme/adjust', { amount_rub: '0', reason: 'nothing' }), 422, 'validation_error', 'amount_rub');
  await gateway.services.ledger.release(hold.id);

  const ledger = await database.db('ledger_transactions').where({ account_id: created.id }).orderBy('id').select('id', 'kind', 'amount_units', 'balance_after_units', 'description');
  t.deepEqual(
    ledger.map((row) => [`txn_${row.id}`, row.kind, BigInt(row.amount_units), BigInt(row.balance_after_units), row.description]),
    [
      [topup.transaction_id, 'topup', 125_000n, 125_000n, 'invoice 17'],
      [bonus.transaction_id, 'bonus', 1n, 125_001n, null],
      [adjusted.transaction_id, 'adjustment', -25_001n, 100_000n, 'double topup'],
    ],
  );
  t.like((await call('GET', '/admin/v1/accounts/acme')).body, { balance_rub: '10.0000', held_rub: '0.0000', available_rub: '10.0000' });

  const disabled = expectAnswer(t, await call('POST', '/admin/v1/accounts/acme/disable', { reason: 'unpaid invoice' }), 200, 'POST', '/admin/v1/accounts/:id/disable');
  t.deepEqual(disabled, { ...created, balance_rub: '10.0000', available_rub: '10.0000', state: 'disabled', disabled_at: startIso, disabled_reason: 'unpaid invoice', changed: true });
  t.like((await call('POST', '/admin/v1/accounts/acme/disable', {})).body, { state: 'disabled', changed: false });
  // No body at all is an empty one.
  t.like(expectAnswer(t, await call('POST', '/admin/v1/accounts/acme/enable'), 200, 'POST', '/admin/v1/accounts/:id/enable'), { state: 'enabled', disabled_at: null, changed: true });
  expectRefusal(t, await call('POST', '/admin/v1/accounts/acc_missing/enable'), 404, 'not_found');

  const audit = expectAnswer(t, await call('GET', '/admin/v1/audit?account=acme'), 200, 'GET', '/admin/v1/audit');
  t.deepEqual(
    audit.data.map((entry: any) => [entry.actor, entry.action, entry.target, entry.account_id, entry.at]),
    [
      [actor, 'account.enable', created.id, created.id, startIso],
      [actor, 'account.disable', created.id, created.id, startIso],
      [actor, 'balance.adjust', created.id, created.id, startIso],
      [actor, 'balance.topup', created.id, created.id, startIso],
      [actor, 'balance.topup', created.id, created.id, startIso],
      [actor, 'account.create', created.id, created.id, startIso],
    ],
  );
  t.deepEqual(audit.data[2].details, { amount_rub: '-2.5001', reason: 'double topup', transaction_id: adjusted.transaction_id, balance_rub: '10.0000' });
  t.deepEqual(audit.data[4].details, { kind: 'topup', amount_rub: '12.5000', note: 'invoice 17', transaction_id: topup.transaction_id, balance_rub: '12.5000' });
  t.is(audit.data[2].id, adjusted.audit_id);
  // Paging by cursor: two at a time, no overlap, no gap.
  const first = expectAnswer(t, await call('GET', '/admin/v1/audit?account=acme&limit=2'), 200, 'GET', '/admin/v1/audit');
  t.like(first, { has_more: true, next_cursor: String(audit.data[1].id) });
  const second = (await call('GET', `/admin/v1/audit?account=acme&limit=2&cursor=${first.next_cursor}`)).body;
  const third = (await call('GET', `/admin/v1/audit?account=acme&limit=2&cursor=${second.next_cursor}`)).body;
  t.deepEqual([...first.data, ...second.data, ...third.data], audit.data);
  t.like(third, { has_more: false, next_cursor: null });
  t.deepEqual((await call('GET', '/admin/v1/audit?action=balance.adjust')).body.data.map((entry: any) => entry.id), [adjusted.audit_id]);
  expectRefusal(t, await call('GET', '/admin/v1/audit?action=balance.steal'), 422, 'validation_error', 'action');
  expectRefusal(t, await call('GET', '/admin/v1/audit?cursor=abc'), 422, 'validation_error', 'cursor');
  expectRefusal(t, await call('GET', '/admin/v1/audit?account=nobody'), 404, 'not_found');
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('keys: create with controls (the secret once, and it works), list, revoke (refused from the next request); 422 naming the field, 404, audited', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { now: clock.now });
  const { id: tokenId, token } = await createAdminToken(gateway.services);
  const actor = `admin-token:${tokenId}`;
  const call = (method: string, path: string, body?: unknown) => admin(gateway.url, { token }, method, path, body);
  const account = expectAnswer(t, await call('POST', '/admin/v1/accounts', { name: 'acme' }), 201, 'POST', '/admin/v1/accounts');

  const body = { name: 'web', scopes: ['images', 'chat'], rpm: 60, tpm: 40_000, max_in_flight: 4, expires: '30d', models: ['sim/*'], allowed_ips: ['127.0.0.1', '10.0.0.0/8'], budget_rub: '5.5', budget_period: 'day' };
  const created = expectAnswer(t, await call('POST', `/admin/v1/accounts/${account.id}/keys`, body), 201, 'POST', '/admin/v1/accounts/:id/keys');
  t.regex(created.key, /^gw-[A-Za-z0-9_-]{43}$/);
  t.deepEqual(created, {
    id: created.id,
    key: created.key,
    prefix: 'gw',
    last4: created.key.slice(-4),
    scopes: ['chat', 'images'],
    account_id: account.id,
    name: 'web',
    rpm: 60,
    tpm: 40_000,
    max_in_flight: 4,
    expires_at: new Date(start + 30 * 86_400_000).toISOString(),
    models: ['sim/*'],
    allowed_ips: ['127.0.0.1', '10.0.0.0/8'],
    budget_rub: '5.5000',
    budget_period: 'day',
  });
  // The secret is a working key (stored only as its hash).
  const history = await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${created.key}` } });
  t.is(history.status, 200);
  t.false(JSON.stringify(await database.db('api_keys').where({ id: created.id }).first()).includes(created.key));

  const plain = expectAnswer(t, await call('POST', '/admin/v1/accounts/acme/keys', {}), 201, 'POST', '/admin/v1/accounts/:id/keys');
  expectAnswer(t, await call('POST', '/admin/v1/accounts', { name: 'zero' }), 201, 'POST', '/admin/v1/accounts');
  const zero = expectAnswer(t, await call('POST', '/admin/v1/accounts/zero/keys', { tpm: 0, max_in_flight: null }), 201, 'POST', '/admin/v1/accounts/:id/keys');
  t.like(zero, { tpm: null, max_in_flight: null }, '0 or null: no limit');
  t.like(plain, { scopes: ['chat', 'search', 'images', 'video', 'music', 'audio', 'embeddings'], name: null, rpm: null, tpm: null, max_in_flight: null, expires_at: null, models: null, allowed_ips: null, budget_rub: null, budget_period: null });

  for (const [bad, field] of [
    [{ scopes: ['chat', 'admin'] }, 'scopes.1'],
    [{ scopes: [] }, 'scopes'],
    [{ rpm: 0 }, 'rpm'],
    [{ rpm: '60' }, 'rpm'],
    [{ tpm: -1 }, 'tpm'],
    [{ tpm: 1.5 }, 'tpm'],
    [{ tpm: 1_000_000_001 }, 'tpm'],
    [{ max_in_flight: -1 }, 'max_in_flight'],
    [{ max_in_flight: '4' }, 'max_in_flight'],
    [{ expires: 'yesterday' }, 'expires'],
    [{ expires: '2020-01-01' }, 'expires'],
    [{ models: ['sim chat'] }, 'models'],
    [{ allowed_ips: ['10.0.0.0/33'] }, 'allowed_ips'],
    [{ budget_rub: '-5' }, 'budget_rub'],
    [{ budget_period: 'year' }, 'budget_period'],
  ] as const) {
    expectRefusal(t, await call('POST', '/admin/v1/accounts/acme/keys', bad), 422, 'validation_error', field);
  }
  expectRefusal(t, await call('POST', '/admin/v1/accounts/acc_missing/keys', {}), 404, 'not_found');
  t.is(await database.db('api_keys').where({ account_id: account.id }).count({ n: '*' }).first().then((row) => Number(row!.n)), 2, 'no refusal made a key');

  const listed = expectAnswer(t, await call('GET', `/admin/v1/accounts/${account.id}/keys`), 200, 'GET', '/admin/v1/accounts/:id/keys');
  t.deepEqual(
    listed.data.map((key: any) => [key.id, key.status, key.created_at, key.revoked_at, key.last4]),
    [
      [created.id, 'active', startIso, null, created.last4],
      [plain.id, 'active', startIso, null, plain.last4],
    ],
  );
  t.false(JSON.stringify(listed).includes(created.key), 'never the secret');
  expectRefusal(t, await call('GET', '/admin/v1/accounts/acc_missing/keys'), 404, 'not_found');

  clock.advance(1_000);
  const revoked = expectAnswer(t, await call('POST', `/admin/v1/keys/${created.id}/revoke`), 200, 'POST', '/admin/v1/keys/:id/revoke');
  t.like(revoked, { id: created.id, status: 'revoked', revoked_at: new Date(start + 1_000).toISOString() });
  const refusedKey = await fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${created.key}` } });
  t.is(refusedKey.status, 401);
  // Twice: the first time stays, no second audit row.
  clock.advance(1_000);
  t.like((await call('POST', `/admin/v1/keys/${created.id}/revoke`)).body, { revoked_at: new Date(start + 1_000).toISOString() });
  expectRefusal(t, await call('POST', '/admin/v1/keys/key_missing/revoke'), 404, 'not_found');
  t.like((await call('GET', '/admin/v1/accounts/acme')).body, { keys: 2, active_keys: 1 });

  const audit = (await call('GET', '/admin/v1/audit?account=acme')).body;
  t.deepEqual(
    audit.data.map((entry: any) => [entry.actor, entry.action, entry.target]),
    [
      [actor, 'key.revoke', created.id],
      [actor, 'key.create', plain.id],
      [actor, 'key.create', created.id],
      [actor, 'account.create', account.id],
    ],
  );
  t.deepEqual(audit.data[2].details, {
    name: 'web',
    scopes: ['chat', 'images'],
    rpm: 60,
    tpm: 40_000,
    max_in_flight: 4,
    prefix: 'gw',
    last4: created.last4,
    expires_at: created.expires_at,
    models: ['sim/*'],
    allowed_ips: ['127.0.0.1', '10.0.0.0/8'],
    budget_rub: '5.5000',
    budget_period: 'day',
  });
  t.false(JSON.stringify(audit).includes(created.key), 'the audit log never holds a secret');
});
