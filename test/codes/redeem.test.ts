// Redeeming codes in the cabinet over HTTP, on both databases: a code of three uses credits
// three accounts once each (typed in any case, with or without dashes), the customer's history
// shows the bonus naming the batch; one answer for unknown, mistyped, disabled, expired and
// used-up codes (injected clock), so trying codes tells nothing; the attempts limited per
// account and per client address (429 with Retry-After), refused attempts spending nothing.
import { MemoryRateLimiter } from '../../src/auth/rate-limiter.js';
import { newCode } from '../../src/codes/code-format.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';
import { balanceOf, codeRow, codesConfig, newCustomer, onlyCodeId, redeem } from './codes-helpers.js';

const start = Date.parse('2026-11-28T12:00:00Z');
const hourMs = 3_600_000;

const invalidBody = {
  error: { message: 'This code is invalid, expired or already used up. Check that it is typed correctly; nothing was credited.', type: 'permission_error', param: 'code', code: 'code_invalid' },
};

testOnBackends('a code of three uses credits three accounts once each, however it is typed; a fourth is refused, a second try of a redeemer too; the history shows the bonus naming the batch; audited', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { raw: codesConfig(), now: clock.now });
  const { services } = gateway;
  const made = await services.codes.create({ amountUnits: 1_005_000n, count: 1, usesPerCode: 3, expiresAt: start + hourMs, note: 'conference', actor: 'test:codes', at: start });
  const code = made.codes[0]!;
  t.regex(code, /^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){4}$/);
  const codeId = await onlyCodeId(services, made.batch.id);
  const [first, second, third, fourth] = [await newCustomer(services), await newCustomer(services), await newCustomer(services), await newCustomer(services)];
  await services.ledger.credit(second!.accountId, 100_000n, 'topup');

  const one = await redeem(gateway.url, first!, { code });
  t.is(one.status, 200, JSON.stringify(one.body));
  t.is(one.headers.get('cache-control'), 'no-store');
  const firstCredit = await database.db('ledger_transactions').where({ account_id: first!.accountId }).first();
  t.deepEqual(one.body, { amount_rub: '100.5000', balance_rub: '100.5000', transaction_id: `txn_${firstCredit.id}`, batch_note: 'conference' });
  const two = await redeem(gateway.url, second!, { code: code.replaceAll('-', '').toLowerCase() });
  t.is(two.status, 200, 'lower case, no dashes: the same code');
  t.is(two.body.balance_rub, '110.5000', 'added to what the account had');
  const three = await redeem(gateway.url, third!, { code: ` ${code.replaceAll('-', ' ')} ` });
  t.is(three.status, 200, 'spaces instead of dashes');

  const refused = await redeem(gateway.url, fourth!, { code });
  t.is(refused.status, 403);
  t.deepEqual(refused.body, invalidBody, 'used up');
  const again = await redeem(gateway.url, first!, { code });
  t.is(again.status, 409);
  t.deepEqual(again.body, { error: { message: 'This account has already redeemed this code; a code credits an account once. Nothing more was credited.', type: 'invalid_request_error', param: 'code', code: 'code_already_redeemed' } });

  t.is(await balanceOf(services, first!.accountId), 1_005_000n);
  t.is(await balanceOf(services, second!.accountId), 1_105_000n);
  t.is(await balanceOf(services, third!.accountId), 1_005_000n);
  t.is(await balanceOf(services, fourth!.accountId), 0n);
  t.is((await codeRow(services, codeId)).uses_left, 0);

  // What the customer sees in the history: one bonus naming the batch and its note.
  const history = (await (await fetch(`${gateway.url}/cabinet/api/history`, { headers: { cookie: first!.cookie } })).json()) as any;
  t.deepEqual(
    history.data.map((item: any) => [item.id, item.kind, item.amount_rub, item.balance_after_rub, item.description]),
    [[`txn_${firstCredit.id}`, 'bonus', '100.5000', '100.5000', `code batch ${made.batch.id} (conference)`]],
  );
  const redemptions = await database.db('code_redemptions').orderBy('created_at').orderBy('id');
  t.deepEqual(redemptions.map((row: any) => [row.code_id, row.batch_id, row.user_id]).sort(), [first, second, third].map((customer) => [codeId, made.batch.id, customer!.userId]).sort());
  const audit = await database.db('audit_log').where({ action: 'code.redeem', account_id: first!.accountId });
  t.is(audit.length, 1);
  t.like(audit[0], { actor: `user:${first!.userId}`, target: codeId });
  t.is(Number(audit[0].at), start);
  t.deepEqual(JSON.parse(audit[0].details), { batch_id: made.batch.id, amount_rub: '100.5000', transaction_id: `txn_${firstCredit.id}`, user_id: first!.userId });
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('one answer for unknown, mistyped, disabled, expired and used-up codes, the same status and body; nothing credited; a missing code is a 422 naming it', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { raw: codesConfig({ code_attempts_per_minute: 100 }), now: clock.now });
  const { services } = gateway;
  const customer = await newCustomer(services);
  const other = await newCustomer(services);
  const create = (count: number, expiresAt: number | null) => services.codes.create({ amountUnits: 10_000n, count, expiresAt, actor: 'test:codes', at: clock.now() });
  const expiring = await create(2, start + hourMs);
  const kept = await create(2, null);
  const disabledBatch = await create(1, null);
  const usedUp = await create(1, null);
  const keptIds = (await database.db('redemption_codes').where({ batch_id: kept.batch.id }).orderBy('created_at').orderBy('id').select('id', 'hint')) as { id: string; hint: string }[];
  const disabledCode = kept.codes.find((code) => code.endsWith(keptIds[0]!.hint))!;
  const liveCode = kept.codes.find((code) => code !== disabledCode)!;
  await services.codes.disable(keptIds[0]!.id, 'test:codes');
  await services.codes.disable(disabledBatch.batch.id, 'test:codes');
  t.is((await redeem(gateway.url, other, { code: usedUp.codes[0] })).status, 200);

  // The last millisecond before the end still credits; at the end it does not.
  clock.advance(hourMs - 1);
  t.is((await redeem(gateway.url, customer, { code: expiring.codes[0] })).status, 200);
  clock.advance(1);
  const refusals = {
    unknown: await redeem(gateway.url, customer, { code: newCode() }),
    mistyped: await redeem(gateway.url, customer, { code: 'HELLO-WORLD' }),
    'look-alikes (0 O 1 I)': await redeem(gateway.url, customer, { code: 'O0O0-I1I1-O0O0-I1I1-O0O0' }),
    expired: await redeem(gateway.url, customer, { code: expiring.codes[1] }),
    'disabled code': await redeem(gateway.url, customer, { code: disabledCode }),
    'disabled batch': await redeem(gateway.url, customer, { code: disabledBatch.codes[0] }),
    'used up': await redeem(gateway.url, customer, { code: usedUp.codes[0] }),
  };
  for (const [why, answer] of Object.entries(refusals)) {
    t.is(answer.status, 403, why);
    t.deepEqual(answer.body, invalidBody, why);
  }
  t.is((await redeem(gateway.url, customer, { code: liveCode })).status, 200, 'disabling one code leaves the others of its batch');

  const missing = await redeem(gateway.url, customer, {});
  t.is(missing.status, 422);
  t.is(missing.body.error.param, 'code');
  t.is(missing.body.error.code, 'validation_error');

  t.is(await balanceOf(services, customer.accountId), 20_000n, 'the two codes that were valid, nothing else');
  t.is((await database.db('code_redemptions').where({ account_id: customer.accountId })).length, 2);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('attempts are limited per account and per client address (cabinet.code_attempts_per_minute): 429 code_rate_limited with Retry-After; a refused attempt spends nothing', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, {
    raw: codesConfig({ code_attempts_per_minute: 3 }, ['127.0.0.1']),
    now: clock.now,
    rateLimiter: new MemoryRateLimiter(clock.now),
  });
  const { services } = gateway;
  const made = await services.codes.create({ amountUnits: 10_000n, count: 1, usesPerCode: 2, expiresAt: null, actor: 'test:codes', at: start });
  const code = made.codes[0]!;
  const [mallory, neighbour] = [await newCustomer(services), await newCustomer(services)];

  for (let attempt = 0; attempt < 3; attempt++) t.is((await redeem(gateway.url, mallory, { code: newCode() }, '203.0.113.7')).status, 403);
  const fromAddress = await redeem(gateway.url, mallory, { code }, '203.0.113.7');
  t.is(fromAddress.status, 429);
  t.is(fromAddress.headers.get('retry-after'), '20');
  t.is(fromAddress.headers.get('x-should-retry'), 'true');
  t.deepEqual(fromAddress.body, {
    error: { message: 'Too many attempts to redeem a code from this address: 3 per minute. Retry in 20 s.', type: 'rate_limit_error', param: null, code: 'code_rate_limited' },
  });
  const forAccount = await redeem(gateway.url, mallory, { code }, '198.51.100.9');
  t.is(forAccount.status, 429, 'another address does not lift the account\'s limit');
  t.is(forAccount.body.error.message, 'Too many attempts to redeem a code for this account: 3 per minute. Retry in 20 s.');
  const sameAddress = await redeem(gateway.url, neighbour, { code }, '203.0.113.7');
  t.is(sameAddress.status, 429, 'another account does not lift the address\'s limit');
  t.is(sameAddress.body.error.message, 'Too many attempts to redeem a code from this address: 3 per minute. Retry in 20 s.');
  t.is((await codeRow(services, await onlyCodeId(services, made.batch.id))).uses_left, 2, 'the refused attempts spent nothing');

  clock.advance(20_000);
  t.is((await redeem(gateway.url, mallory, { code }, '198.51.100.9')).status, 200);
  t.is((await redeem(gateway.url, neighbour, { code }, '203.0.113.7')).status, 200);
  t.is(await balanceOf(services, mallory.accountId), 10_000n);
  t.is(await balanceOf(services, neighbour.accountId), 10_000n);
  await assertLedgerInvariants(t, database.db);
});
