// Random interleavings of topup / hold / settle / release, run in concurrent batches, keep
// every money invariant: balance == sum(ledger), held == sum(active holds), never negative,
// and each hold closes at most once.
import fc from 'fast-check';
import { Accounts } from '../../src/accounts/accounts.js';
import { HoldClosedError, InsufficientBalanceError } from '../../src/billing/errors.js';
import { Ledger } from '../../src/billing/ledger.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';

type Operation =
  | { kind: 'topup'; units: number }
  | { kind: 'hold'; units: number }
  | { kind: 'settle'; pick: number; units: number }
  | { kind: 'release'; pick: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('topup' as const), units: fc.integer({ min: 1, max: 50_000 }) }),
  fc.record({ kind: fc.constant('hold' as const), units: fc.integer({ min: 1, max: 30_000 }) }),
  fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), units: fc.integer({ min: 0, max: 40_000 }) }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
);

testOnBackends('random concurrent interleavings keep the money invariants', async (t, { db }) => {
  const ledger = new Ledger(db);
  const accounts = new Accounts(db);
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(operation, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 }), async (batches) => {
      const account = await accounts.create(`property-${run++}`);
      const holds: string[] = [];
      let expectedBalance = 0n;
      const closed = new Set<string>();
      for (const batch of batches) {
        const outcomes = await Promise.allSettled(
          batch.map(async (op) => {
            switch (op.kind) {
              case 'topup':
                await ledger.credit(account.id, BigInt(op.units), 'topup');
                return { credit: BigInt(op.units) };
              case 'hold': {
                const hold = await ledger.hold(account.id, BigInt(op.units), { ttlMs: 60_000 });
                holds.push(hold.id);
                return {};
              }
              case 'settle': {
                if (holds.length === 0) return {};
                const id = holds[op.pick % holds.length]!;
                const settlement = await ledger.settle(id, BigInt(op.units));
                if (closed.has(id)) throw new Error(`hold ${id} settled after it was closed`);
                closed.add(id);
                return { credit: -settlement.chargedUnits };
              }
              case 'release': {
                if (holds.length === 0) return {};
                const id = holds[op.pick % holds.length]!;
                if (await ledger.release(id)) {
                  if (closed.has(id)) throw new Error(`hold ${id} released after it was closed`);
                  closed.add(id);
                }
                return {};
              }
            }
          }),
        );
        for (const outcome of outcomes) {
          if (outcome.status === 'fulfilled') expectedBalance += outcome.value.credit ?? 0n;
          else if (!(outcome.reason instanceof InsufficientBalanceError || outcome.reason instanceof HoldClosedError)) throw outcome.reason;
        }
        const summary = await ledger.balance(account.id);
        if (summary.balanceUnits !== expectedBalance) throw new Error(`balance ${summary.balanceUnits} != expected ${expectedBalance}`);
        if (summary.availableUnits < 0n) throw new Error('available went negative');
      }
    }),
    { numRuns: 30 },
  );
  await assertLedgerInvariants(t, db);
});
