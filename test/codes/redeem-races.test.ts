// Redemptions racing over HTTP, on both databases (issue 32: "50 concurrent redemptions of a
// single-use code credit once"): 50 accounts at once on one single-use code; one account 50
// times at once on a single-use code and on a code of three uses. Each credits exactly once in
// total per account, the code's uses count down exactly, one redemption row, one ledger row and
// one audit row per credit, and balance == sum(ledger) after all of it.
import type { ExecutionContext } from 'ava';
import { formatRub } from '../../src/util/money.js';
import { codeSource } from '../../src/payments/credit-sources.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { balanceOf, codeRow, codesConfig, newCustomer, onlyCodeId, redeem, type Customer } from './codes-helpers.js';

const amountUnits = 5_000_000n; // 500 RUB
const racers = 50;

/** A gateway whose code limits leave room for the races (each racer is one attempt of one address). */
const raceGateway = (t: ExecutionContext, database: Parameters<typeof startGateway>[1]) => startGateway(t, database, { raw: { ...codesConfig({ code_attempts_per_minute: 1000 }), rate_limit: { requests_per_minute: 1000 } } });

async function newBatch(gateway: TestGateway, usesPerCode: number) {
  const made = await gateway.services.codes.create({ amountUnits, count: 1, usesPerCode, expiresAt: null, note: 'race', actor: 'test:races', at: gateway.services.now() });
  return { batchId: made.batch.id, code: made.codes[0]!, codeId: await onlyCodeId(gateway.services, made.batch.id) };
}

async function creditsOf(gateway: TestGateway, codeId: string) {
  return gateway.services.db('ledger_transactions').where('source', 'like', `code:${codeId}:%`).orderBy('id');
}

testOnBackends('50 accounts redeem one single-use code at once: one is credited 500 RUB, 49 get code_invalid; one ledger row, one redemption, no use left', async (t, database) => {
  t.timeout(60_000);
  const gateway = await raceGateway(t, database);
  const { batchId, code, codeId } = await newBatch(gateway, 1);
  const customers: Customer[] = await Promise.all(Array.from({ length: racers }, () => newCustomer(gateway.services)));

  const answers = await Promise.all(customers.map((customer) => redeem(gateway.url, customer, { code })));
  const won = answers.flatMap((answer, index) => (answer.status === 200 ? [index] : []));
  t.is(won.length, 1, 'exactly one redemption succeeded');
  t.deepEqual(
    answers.filter((answer) => answer.status !== 200).map((answer) => [answer.status, answer.body.error.code]),
    Array.from({ length: racers - 1 }, () => [403, 'code_invalid']),
  );
  const winner = customers[won[0]!]!;
  const credits = await creditsOf(gateway, codeId);
  t.is(credits.length, 1);
  t.like(credits[0], { account_id: winner.accountId, kind: 'bonus', source: codeSource(codeId, winner.accountId), description: `code batch ${batchId} (race)` });
  t.is(BigInt(credits[0].amount_units), amountUnits);
  t.deepEqual(answers[won[0]!]!.body, { amount_rub: '500.0000', balance_rub: '500.0000', transaction_id: `txn_${credits[0].id}`, batch_note: 'race' });
  for (const customer of customers) t.is(await balanceOf(gateway.services, customer.accountId), customer === winner ? amountUnits : 0n);
  t.is((await codeRow(gateway.services, codeId)).uses_left, 0);
  t.is((await gateway.services.db('code_redemptions').where({ code_id: codeId })).length, 1);
  t.is((await gateway.services.db('audit_log').where({ action: 'code.redeem' })).length, 1);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('one account redeems a code 50 times at once: a single-use code and a code of three uses each credit it once (49 × code_already_redeemed); the other uses stay', async (t, database) => {
  t.timeout(60_000);
  const gateway = await raceGateway(t, database);
  const customer = await newCustomer(gateway.services);
  let expected = 0n;
  for (const uses of [1, 3]) {
    const { code, codeId } = await newBatch(gateway, uses);
    const answers = await Promise.all(Array.from({ length: racers }, () => redeem(gateway.url, customer, { code })));
    expected += amountUnits;
    t.is(answers.filter((answer) => answer.status === 200).length, 1, `uses ${uses}: one success`);
    t.deepEqual(
      answers.filter((answer) => answer.status !== 200).map((answer) => [answer.status, answer.body.error.code]),
      Array.from({ length: racers - 1 }, () => [409, 'code_already_redeemed']),
      `uses ${uses}: the others are told the account has it already`,
    );
    t.is((await creditsOf(gateway, codeId)).length, 1);
    t.is((await codeRow(gateway.services, codeId)).uses_left, uses - 1, 'the refused redemptions gave their use back');
    t.is((await gateway.services.db('code_redemptions').where({ code_id: codeId })).length, 1);
    t.is(await balanceOf(gateway.services, customer.accountId), expected);
  }
  t.is(formatRub(await balanceOf(gateway.services, customer.accountId)), '1000.0000');
  t.is((await gateway.services.db('audit_log').where({ action: 'code.redeem' })).length, 2);
  await assertLedgerInvariants(t, database.db);
});
