// Redemption codes as one service (services.codes): what the CLI's `codes` commands, the admin
// API and the cabinet's redeem call. Each operation is its own file; this only binds them to the
// process's database, ledger and clock.
import type { Knex } from 'knex';
import type { Ledger } from '../billing/ledger.js';
import { findBatch, listBatches, listCodes } from './code-listing.js';
import type { CodeBatch, RedemptionCode } from './code-rows.js';
import { createBatch, type NewBatch } from './create-batch.js';
import { disableCodes, type Disabled } from './disable-codes.js';
import { redeemCode, type Redemption, type RedemptionRequest } from './redeem-code.js';

export class Codes {
  constructor(
    private readonly db: Knex,
    private readonly ledger: Ledger,
    private readonly now: () => number,
  ) {}

  /** A new batch and its codes, grouped (`ABCD-EFGH-…`): the only time they exist in full. Audited (code_batch.create). */
  create(request: NewBatch): Promise<{ batch: CodeBatch; codes: string[] }> {
    return createBatch(this.db, request);
  }

  /** Every batch, newest first, with its redemptions so far. */
  listBatches(): Promise<CodeBatch[]> {
    return listBatches(this.db);
  }

  /** One batch with its codes (hints only); CodeNotFoundError when there is none. */
  async showBatch(batchId: string): Promise<{ batch: CodeBatch; codes: RedemptionCode[] }> {
    const batch = await findBatch(this.db, batchId);
    return { batch, codes: await listCodes(this.db, batchId) };
  }

  /** Disables a batch (cbat_…) or one code (code_…). Audited (code_batch.disable, code.disable), once. */
  disable(id: string, actor: string): Promise<Disabled> {
    return disableCodes(this.db, id, actor, this.now());
  }

  /** Credits the account once with the code's amount; CodeInvalidError or CodeAlreadyRedeemedError. Audited (code.redeem). */
  redeem(request: RedemptionRequest): Promise<Redemption> {
    return redeemCode(this.db, this.ledger, request, this.now);
  }
}
