// How batches, codes and redemptions look in the CLI's and the HTTP API's JSON (the shapes of
// src/codes/code-answers.ts). A code itself appears only in the answer that creates its batch.
import { formatRub } from '../util/money.js';
import type { CodeBatchAnswer, CodeBatchDetailAnswer, CodeRedemptionAnswer, CreatedCodeBatchAnswer, RedemptionCodeAnswer } from '../codes/code-answers.js';
import type { CodeBatch, RedemptionCode } from '../codes/code-rows.js';
import type { Redemption } from '../codes/redeem-code.js';
import { isoTime } from '../util/iso-time.js';

export function presentBatch(batch: CodeBatch): CodeBatchAnswer {
  return {
    id: batch.id,
    amount_rub: formatRub(batch.amountUnits),
    uses_per_code: batch.usesPerCode,
    count: batch.count,
    redeemed: batch.redeemed,
    expires_at: isoTime(batch.expiresAt),
    disabled_at: isoTime(batch.disabledAt),
    note: batch.note,
    created_by: batch.createdBy,
    created_at: isoTime(batch.createdAt)!,
  };
}

export function presentCode(code: RedemptionCode): RedemptionCodeAnswer {
  return { id: code.id, hint: code.hint, uses_left: code.usesLeft, disabled_at: isoTime(code.disabledAt), redemptions: code.redemptions };
}

export function presentBatchDetail(shown: { batch: CodeBatch; codes: RedemptionCode[] }): CodeBatchDetailAnswer {
  return { ...presentBatch(shown.batch), codes: shown.codes.map(presentCode) };
}

export function presentCreatedBatch(made: { batch: CodeBatch; codes: string[] }): CreatedCodeBatchAnswer {
  return { batch: presentBatch(made.batch), codes: made.codes };
}

export function presentRedemption(redemption: Redemption): CodeRedemptionAnswer {
  return {
    amount_rub: formatRub(redemption.amountUnits),
    balance_rub: formatRub(redemption.balanceUnits),
    transaction_id: `txn_${redemption.transactionId}`,
    ...(redemption.batchNote === null ? {} : { batch_note: redemption.batchNote }),
  };
}

/** `gateway codes create`'s stdout: CSV with a header, one code a line (no field needs quoting). */
export function codesCsv(made: CreatedCodeBatchAnswer): string {
  const { batch } = made;
  const rows = made.codes.map((code) => [code, batch.amount_rub, batch.uses_per_code, batch.expires_at ?? '', batch.id].join(','));
  return ['code,amount_rub,uses,expires_at,batch_id', ...rows].join('\n');
}
