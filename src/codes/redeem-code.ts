// Redeeming a code (POST /cabinet/api/codes/redeem): one transaction that finds the code by its
// hash, refuses it when it cannot credit, takes one use, writes ONE `bonus` ledger row, the
// redemption and an audit row. What makes it exact under races:
// - the use is taken by one conditional UPDATE (`uses_left > 0`): of two redemptions racing for
//   a code's last use one updates a row, the other none (PostgreSQL re-reads the row after the
//   first commits; SQLite runs the two transactions one after the other);
// - an account redeems a code once: the ledger row's source `code:<code id>:<account id>` and
//   code_redemptions(code_id, account_id) are both unique, so a second redemption by the same
//   account fails on the index and its transaction, the use it took included, rolls back.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import type { Ledger } from '../billing/ledger.js';
import { formatRub, unitsFromSql } from '../util/money.js';
import { isUniqueViolation } from '../db/errors.js';
import { optionalNumber } from '../db/row-values.js';
import { codeSource } from '../payments/credit-sources.js';
import { newId } from '../util/ids.js';
import { CodeAlreadyRedeemedError, CodeInvalidError } from './code-errors.js';
import { hashCode, normalizeCode } from './code-format.js';
import { batchIsLive } from './code-rows.js';

export interface RedemptionRequest {
  /** What the customer typed: any case, with or without dashes. */
  readonly code: unknown;
  readonly accountId: string;
  /** The user who redeemed it (null for a session of an operator's login link). */
  readonly userId: string | null;
  /** Who acts, for the audit row (`user:<id>`, `cabinet:<session id>`). */
  readonly actor: string;
  /** The request that redeemed it, kept on the ledger row. */
  readonly requestId?: string;
}

export interface Redemption {
  readonly id: string;
  readonly codeId: string;
  readonly batchId: string;
  readonly batchNote: string | null;
  readonly amountUnits: bigint;
  /** The account's balance after the credit. */
  readonly balanceUnits: bigint;
  /** The ledger row's id (`txn_<id>` on the wire). */
  readonly transactionId: string;
}

interface FoundCode {
  code_id: string;
  code_disabled_at: string | number | null;
  batch_id: string;
  amount_units: string | number;
  expires_at: string | number | null;
  note: string | null;
  batch_disabled_at: string | number | null;
}

/** The ledger row's description: the batch, and its note when it has one (the customer reads it in the history). */
export const redemptionDescription = (batchId: string, note: string | null) => `code batch ${batchId}${note === null ? '' : ` (${note})`}`;

export async function redeemCode(db: Knex, ledger: Ledger, request: RedemptionRequest, now: () => number): Promise<Redemption> {
  const normalized = normalizeCode(request.code);
  if (normalized === undefined) throw new CodeInvalidError(); // cannot be a code: no lookup
  const codeHash = hashCode(normalized);
  const { accountId } = request;
  try {
    return await db.transaction(async (trx) => {
      const found: FoundCode | undefined = await trx('redemption_codes as c')
        .join('code_batches as b', 'b.id', 'c.batch_id')
        .where('c.code_hash', codeHash)
        .first('c.id as code_id', 'c.disabled_at as code_disabled_at', 'b.id as batch_id', 'b.amount_units', 'b.expires_at', 'b.note', 'b.disabled_at as batch_disabled_at');
      if (!found) throw new CodeInvalidError();
      const at = now();
      const live = found.code_disabled_at === null && batchIsLive({ disabledAt: optionalNumber(found.batch_disabled_at), expiresAt: optionalNumber(found.expires_at) }, at);
      if (!live) throw new CodeInvalidError();
      const redeemedHere = async () => (await trx('code_redemptions').where({ code_id: found.code_id, account_id: accountId }).first('id')) !== undefined;
      // Before the count: the account that took a single-use code's only use learns that it did, not that the code is used up.
      if (await redeemedHere()) throw new CodeAlreadyRedeemedError();
      const taken = await trx('redemption_codes').where({ id: found.code_id }).whereNull('disabled_at').andWhere('uses_left', '>', 0).decrement('uses_left', 1);
      if (taken !== 1) {
        // Used up, perhaps by this account's own redemption that won the race (read again: committed meanwhile).
        throw (await redeemedHere()) ? new CodeAlreadyRedeemedError() : new CodeInvalidError();
      }
      const amountUnits = unitsFromSql(found.amount_units);
      const credit = await ledger.credit(accountId, amountUnits, 'bonus', {
        within: trx,
        source: codeSource(found.code_id, accountId),
        description: redemptionDescription(found.batch_id, found.note),
        requestId: request.requestId ?? null,
      });
      const id = newId('cred');
      await trx('code_redemptions').insert({ id, code_id: found.code_id, batch_id: found.batch_id, account_id: accountId, user_id: request.userId, transaction_id: Number(credit.transactionId), created_at: at });
      await writeAudit(
        trx,
        { actor: request.actor, action: 'code.redeem', target: found.code_id, accountId, details: { batch_id: found.batch_id, amount_rub: formatRub(amountUnits), transaction_id: `txn_${credit.transactionId}`, user_id: request.userId } },
        at,
      );
      return { id, codeId: found.code_id, batchId: found.batch_id, batchNote: found.note, amountUnits, balanceUnits: credit.balanceUnits, transactionId: credit.transactionId };
    });
  } catch (error) {
    // This account's concurrent redemption of the same code committed first (the ledger's source or the redemption's index).
    if (isUniqueViolation(error)) throw new CodeAlreadyRedeemedError();
    throw error;
  }
}
