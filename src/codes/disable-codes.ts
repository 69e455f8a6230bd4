// Disabling a code or a whole batch (`gateway codes disable ID`, POST /admin/v1/codes/:id/disable):
// it credits nothing from then on; what was redeemed stays redeemed. Disabling what is disabled
// already changes nothing and writes no audit row (the first time is kept).
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import { CodeNotFoundError } from './code-errors.js';
import { findBatch, findCode } from './code-listing.js';
import type { CodeBatch, RedemptionCode } from './code-rows.js';

export type Disabled = { readonly kind: 'batch'; readonly batch: CodeBatch } | { readonly kind: 'code'; readonly code: RedemptionCode };

/** `id`: a batch (cbat_…) or a code (code_…) id. */
export async function disableCodes(db: Knex, id: string, actor: string, now: number): Promise<Disabled> {
  const target = id.startsWith('cbat_') ? { table: 'code_batches', action: 'code_batch.disable' as const } : id.startsWith('code_') ? { table: 'redemption_codes', action: 'code.disable' as const } : undefined;
  if (!target) throw new CodeNotFoundError(id);
  await db.transaction(async (trx) => {
    const changed = await trx(target.table).where({ id }).whereNull('disabled_at').update({ disabled_at: now });
    if (changed === 1) {
      await writeAudit(trx, { actor, action: target.action, target: id, accountId: null, details: {} }, now);
      return;
    }
    const exists = await trx(target.table).where({ id }).first('id');
    if (!exists) throw new CodeNotFoundError(id);
  });
  return target.table === 'code_batches' ? { kind: 'batch', batch: await findBatch(db, id) } : { kind: 'code', code: await findCode(db, id) };
}
