// The admin API's /admin/v1/codes over HTTP, on both databases: a batch created with a money
// token (its codes in that answer only, each unique, in the readable format), listed and shown
// with hints and counts but never a code, disabled by batch or by code (once: audited once, the
// first time kept), refusals (422 naming the field, 404), and the scopes: a read token lists but
// cannot create or disable, a money token can. Every answer checked against the documented schema.
import { normalizeCode } from '../../src/codes/code-format.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { testActor } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';
import { admin, expectAnswer, expectRefusal } from '../admin/admin-helpers.js';
import { codesConfig, newCustomer, redeem } from './codes-helpers.js';

const start = Date.parse('2026-11-28T12:00:00Z');

testOnBackends('admin API: a batch is created with its codes shown once, listed and shown without them, disabled by code and by batch once; refusals name the field; a read token cannot create or disable', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { raw: codesConfig(), now: clock.now });
  const { services } = gateway;
  const money = await services.cabinet.adminTokens.create({ name: 'money', scopes: ['money'], actor: testActor });
  const read = await services.cabinet.adminTokens.create({ name: 'read', scopes: ['read'], actor: testActor });
  const asMoney = (method: string, path: string, body?: unknown) => admin(gateway.url, { token: money.token }, method, path, body);
  const asRead = (method: string, path: string, body?: unknown) => admin(gateway.url, { token: read.token }, method, path, body);

  const created = expectAnswer(t, await asMoney('POST', '/admin/v1/codes', { amount_rub: '500', count: 25, expires: '30d', uses: 2, note: 'autumn promo' }), 201, 'POST', '/admin/v1/codes');
  const batch = {
    id: created.batch.id,
    amount_rub: '500.0000',
    uses_per_code: 2,
    count: 25,
    redeemed: 0,
    expires_at: '2026-12-28T12:00:00.000Z',
    disabled_at: null,
    note: 'autumn promo',
    created_by: `admin-token:${money.adminToken.id}`,
    created_at: '2026-11-28T12:00:00.000Z',
  };
  t.deepEqual(created.batch, batch);
  t.regex(created.batch.id, /^cbat_[2-7a-z]+$/);
  t.is(created.codes.length, 25);
  t.is(new Set(created.codes).size, 25, 'every code differs');
  for (const code of created.codes) t.regex(code, /^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){4}$/);
  const defaults = expectAnswer(t, await asMoney('POST', '/admin/v1/codes', { amount_rub: '0.5', count: 1 }), 201, 'POST', '/admin/v1/codes');
  t.like(defaults.batch, { amount_rub: '0.5000', uses_per_code: 1, expires_at: null, note: null });

  // Stored only as hashes: no code appears anywhere in the database.
  const stored = JSON.stringify(await database.db('redemption_codes').select('*'));
  for (const code of [...created.codes, ...defaults.codes]) {
    t.false(stored.includes(code) || stored.includes(normalizeCode(code)!), 'no code is stored');
  }

  // One code redeemed, so the counts move.
  const customer = await newCustomer(services);
  t.is((await redeem(gateway.url, customer, { code: created.codes[3] })).status, 200);

  const listed = expectAnswer(t, await asRead('GET', '/admin/v1/codes'), 200, 'GET', '/admin/v1/codes');
  t.deepEqual(listed, { object: 'list', data: [{ ...defaults.batch }, { ...batch, redeemed: 1 }].sort((a, b) => b.id.localeCompare(a.id)), has_more: false });
  const shown = expectAnswer(t, await asRead('GET', `/admin/v1/codes/${batch.id}`), 200, 'GET', '/admin/v1/codes/:batchId');
  t.like(shown, { ...batch, redeemed: 1 });
  t.is(shown.codes.length, 25);
  t.deepEqual(shown.codes.map((code: any) => code.hint).sort(), created.codes.map((code: string) => code.slice(-4)).sort(), 'each code by its last four characters');
  const redeemed = shown.codes.find((code: any) => code.hint === created.codes[3].slice(-4));
  t.deepEqual({ ...redeemed, id: 'x' }, { id: 'x', hint: created.codes[3].slice(-4), uses_left: 1, disabled_at: null, redemptions: 1 });
  t.false(JSON.stringify([listed, shown]).includes(created.codes[0]), 'a list never shows a code');

  // Disabling: a code, then the batch; again changes nothing.
  const other = shown.codes.find((code: any) => code.id !== redeemed.id);
  expectRefusal(t, await asRead('POST', `/admin/v1/codes/${other.id}/disable`), 403, 'admin_scope_missing');
  expectRefusal(t, await asRead('POST', '/admin/v1/codes', { amount_rub: '1', count: 1 }), 403, 'admin_scope_missing');
  const disabledCode = expectAnswer(t, await asMoney('POST', `/admin/v1/codes/${other.id}/disable`), 200, 'POST', '/admin/v1/codes/:id/disable');
  t.deepEqual(disabledCode, { ...other, disabled_at: '2026-11-28T12:00:00.000Z' });
  clock.advance(1000);
  const disabledBatch = expectAnswer(t, await asMoney('POST', `/admin/v1/codes/${batch.id}/disable`), 200, 'POST', '/admin/v1/codes/:id/disable');
  t.deepEqual(disabledBatch, { ...batch, redeemed: 1, disabled_at: '2026-11-28T12:00:01.000Z' });
  clock.advance(1000);
  t.is(expectAnswer(t, await asMoney('POST', `/admin/v1/codes/${batch.id}/disable`), 200, 'POST', '/admin/v1/codes/:id/disable').disabled_at, '2026-11-28T12:00:01.000Z', 'the first time is kept');
  t.is(expectAnswer(t, await asMoney('POST', `/admin/v1/codes/${other.id}/disable`), 200, 'POST', '/admin/v1/codes/:id/disable').disabled_at, '2026-11-28T12:00:00.000Z');
  t.is((await redeem(gateway.url, await newCustomer(services), { code: created.codes[4] })).status, 403, 'a disabled batch credits nothing');

  // Refusals.
  const bad = async (body: unknown, param: string) => expectRefusal(t, await asMoney('POST', '/admin/v1/codes', body), 422, 'validation_error', param);
  await bad({ count: 1 }, 'amount_rub');
  await bad({ amount_rub: 500, count: 1 }, 'amount_rub');
  await bad({ amount_rub: '0', count: 1 }, 'amount_rub');
  await bad({ amount_rub: '1.00001', count: 1 }, 'amount_rub');
  await bad({ amount_rub: '1' }, 'count');
  await bad({ amount_rub: '1', count: 0 }, 'count');
  await bad({ amount_rub: '1', count: 10_001 }, 'count');
  await bad({ amount_rub: '1', count: 1, uses: 0 }, 'uses');
  await bad({ amount_rub: '1', count: 1, expires: 'soon' }, 'expires');
  await bad({ amount_rub: '1', count: 1, note: 'x'.repeat(201) }, 'note');
  // A misspelt field is refused rather than ignored (money is made here); the message names it.
  const misspelt = await asMoney('POST', '/admin/v1/codes', { amount_rub: '1', count: 1, use: 3 });
  expectRefusal(t, misspelt, 422, 'validation_error');
  t.is(misspelt.body.error.message, 'body: Value error, Unrecognized key: "use"');
  expectRefusal(t, await asRead('GET', '/admin/v1/codes/cbat_nothing'), 404, 'not_found');
  expectRefusal(t, await asMoney('POST', '/admin/v1/codes/code_nothing/disable'), 404, 'not_found');
  expectRefusal(t, await asMoney('POST', '/admin/v1/codes/acc_nothing/disable'), 404, 'not_found');
  t.is((await database.db('code_batches')).length, 2, 'refused requests made nothing');

  const audit = await database.db('audit_log').where('action', 'like', 'code%').orderBy('id');
  const actor = `admin-token:${money.adminToken.id}`;
  t.deepEqual(audit.map((row: any) => [row.action, row.target, row.actor]), [
    ['code_batch.create', batch.id, actor],
    ['code_batch.create', defaults.batch.id, actor],
    ['code.redeem', redeemed.id, `user:${customer.userId}`],
    ['code.disable', other.id, actor],
    ['code_batch.disable', batch.id, actor],
  ]);
  t.deepEqual(JSON.parse(audit[0].details), { amount_rub: '500.0000', count: 25, uses_per_code: 2, expires_at: '2026-12-28T12:00:00.000Z', note: 'autumn promo' });
  await assertLedgerInvariants(t, database.db);
});
