// A batch of redemption codes and one code of it as the program holds them, read from their
// rows (migration 20261128310000). Neither ever holds a code itself: only its hint.
import { optionalNumber } from '../db/row-values.js';
import { unitsFromSql } from '../util/money.js';

export interface CodeBatch {
  readonly id: string;
  /** What redeeming one code of the batch credits, in units of 0.0001 RUB. */
  readonly amountUnits: bigint;
  /** How many accounts each code may credit (once each). */
  readonly usesPerCode: number;
  /** How many codes the batch has. */
  readonly count: number;
  /** null: the codes never expire. */
  readonly expiresAt: number | null;
  /** The operator's note; the customer who redeems a code sees it too. */
  readonly note: string | null;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly disabledAt: number | null;
  /** Redemptions of the batch's codes so far. */
  readonly redeemed: number;
}

export interface RedemptionCode {
  readonly id: string;
  readonly batchId: string;
  /** The code's last four characters. */
  readonly hint: string;
  readonly usesLeft: number;
  readonly disabledAt: number | null;
  readonly createdAt: number;
  /** Accounts that redeemed it so far. */
  readonly redemptions: number;
}

export interface CodeBatchRow {
  id: string;
  amount_units: string | number;
  uses_per_code: string | number;
  count: string | number;
  expires_at: string | number | null;
  note: string | null;
  created_by: string;
  created_at: string | number;
  disabled_at: string | number | null;
  /** A count selected beside the row (listing); absent on a bare row. */
  redeemed?: string | number;
}

export interface RedemptionCodeRow {
  id: string;
  batch_id: string;
  code_hash: string;
  hint: string;
  uses_left: string | number;
  disabled_at: string | number | null;
  created_at: string | number;
  redemptions?: string | number;
}

export const batchFromRow = (row: CodeBatchRow): CodeBatch => ({
  id: row.id,
  amountUnits: unitsFromSql(row.amount_units),
  usesPerCode: Number(row.uses_per_code),
  count: Number(row.count),
  expiresAt: optionalNumber(row.expires_at),
  note: row.note,
  createdBy: row.created_by,
  createdAt: Number(row.created_at),
  disabledAt: optionalNumber(row.disabled_at),
  redeemed: Number(row.redeemed ?? 0),
});

export const codeFromRow = (row: RedemptionCodeRow): RedemptionCode => ({
  id: row.id,
  batchId: row.batch_id,
  hint: row.hint,
  usesLeft: Number(row.uses_left),
  disabledAt: optionalNumber(row.disabled_at),
  createdAt: Number(row.created_at),
  redemptions: Number(row.redemptions ?? 0),
});

/** Whether a batch's codes still credit at `now` (the batch neither disabled nor past its end). */
export const batchIsLive = (batch: { disabledAt: number | null; expiresAt: number | null }, now: number) =>
  batch.disabledAt === null && (batch.expiresAt === null || batch.expiresAt > now);
