// Operator changes of the ledger (issue 18): a topup (or bonus, referral credit), a balance
// adjustment and the refund of a charge. Each is one transaction: the conditional account
// update and its ledger row (as every credit, ledger.ts), and its audit row with the actor
// (src/audit/audit-log.ts) — all or nothing. The CLI and the admin API both call these.
//
// - An adjustment may be negative; it is refused (nothing written) when it would take more than
//   the account's available money (balance - held): the balance stays >= 0, and money held for
//   running requests stays theirs to settle. The check is the update's own WHERE, so concurrent
//   adjustments cannot overdraw together.
// - A refund gives back one charge, whole, once. Its ledger row carries the charge's hold_id,
//   so the unique index ledger_one_charge_per_hold (hold_id, kind) admits one `refund` per
//   charge on both databases: a second or concurrent refund fails on it and rolls back.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import { isUniqueViolation } from '../db/errors.js';
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { InsufficientBalanceError } from './errors.js';
import type { Ledger } from './ledger.js';
import { formatRub, unitsFromSql } from '../util/money.js';

export class AdjustmentRefusedError extends DomainError {
  override readonly catalogCode = 'adjustment_refused';

  constructor(
    readonly accountId: string,
    readonly amountUnits: bigint,
    readonly availableUnits: bigint,
  ) {
    super(
      `refused: an adjustment of ${formatRub(amountUnits)} RUB would take more than the ${formatRub(availableUnits)} RUB available ` +
        `to ${accountId} (the balance minus what running requests hold); nothing was written`,
    );
    this.name = 'AdjustmentRefusedError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, this.message, { param: 'amount_rub' });
  }
}

export class ChargeNotFoundError extends DomainError {
  override readonly catalogCode = 'not_found';

  constructor(
    readonly reference: string,
    message = `no charge for request or job "${reference}"`,
  ) {
    super(message);
    this.name = 'ChargeNotFoundError';
  }
}

export class AlreadyRefundedError extends DomainError {
  override readonly catalogCode = 'already_refunded';

  constructor(readonly reference: string) {
    super(`the charge of "${reference}" was already refunded; nothing was written`);
    this.name = 'AlreadyRefundedError';
  }
}

export class AmbiguousChargeError extends DomainError {
  override readonly catalogCode = 'invalid_argument';
  override readonly seenIn = 'cli';

  constructor(
    readonly reference: string,
    readonly charges: number,
  ) {
    super(`request "${reference}" has ${charges} charges; refund each by its job id`);
    this.name = 'AmbiguousChargeError';
  }
}

/**
 * Which charge a refund gives back: by the request or job id (`reference`, as `balance refund
 * --request-id` takes it), or by the charge's ledger row (`transactionId`, txn_…).
 */
export type ChargeReference = { readonly reference: string } | { readonly transactionId: string };

/** `txn_123` → `123`; undefined for anything else. */
export function transactionNumber(transactionId: string): string | undefined {
  return /^txn_(\d{1,18})$/.exec(transactionId)?.[1];
}

export interface CorrectionResult {
  readonly transactionId: string;
  readonly accountId: string;
  readonly amountUnits: bigint;
  readonly balanceUnits: bigint;
  readonly auditId: number;
}

export interface RefundResult extends CorrectionResult {
  readonly requestId: string | null;
  readonly jobId: string | null;
  readonly holdId: string;
  readonly chargeTransactionId: string;
}

export class Corrections {
  constructor(
    private readonly db: Knex,
    private readonly ledger: Ledger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds money: a topup, bonus or referral credit (positive, never zero), with an optional note as its description. */
  async topup(input: { accountId: string; amountUnits: bigint; kind: 'topup' | 'bonus' | 'referral'; note: string | null; actor: string }): Promise<CorrectionResult> {
    if (input.amountUnits <= 0n) throw new RangeError('the amount must be more than zero');
    return this.db.transaction(async (trx) => {
      const { transactionId, balanceUnits } = await this.ledger.credit(input.accountId, input.amountUnits, input.kind, { within: trx, description: input.note });
      const auditId = await writeAudit(
        trx,
        {
          actor: input.actor,
          action: 'balance.topup',
          target: input.accountId,
          accountId: input.accountId,
          details: { kind: input.kind, amount_rub: formatRub(input.amountUnits), note: input.note, transaction_id: `txn_${transactionId}`, balance_rub: formatRub(balanceUnits) },
        },
        this.now(),
      );
      return { transactionId, accountId: input.accountId, amountUnits: input.amountUnits, balanceUnits, auditId };
    });
  }

  /** Adds (positive) or removes (negative) money with a reason; AdjustmentRefusedError when it would take more than is available. */
  async adjust(input: { accountId: string; amountUnits: bigint; reason: string; actor: string }): Promise<CorrectionResult> {
    if (input.amountUnits === 0n) throw new RangeError('the amount must not be zero');
    if (input.reason.trim() === '') throw new RangeError('a reason is required');
    try {
      return await this.db.transaction(async (trx) => {
        const { transactionId, balanceUnits } = await this.ledger.credit(input.accountId, input.amountUnits, 'adjustment', {
          within: trx,
          description: input.reason,
        });
        const auditId = await writeAudit(
          trx,
          {
            actor: input.actor,
            action: 'balance.adjust',
            target: input.accountId,
            accountId: input.accountId,
            details: { amount_rub: formatRub(input.amountUnits), reason: input.reason, transaction_id: `txn_${transactionId}`, balance_rub: formatRub(balanceUnits) },
          },
          this.now(),
        );
        return { transactionId, accountId: input.accountId, amountUnits: input.amountUnits, balanceUnits, auditId };
      });
    } catch (error) {
      if (error instanceof InsufficientBalanceError) throw new AdjustmentRefusedError(input.accountId, input.amountUnits, error.availableUnits);
      throw error;
    }
  }

  /**
   * Refunds the charge of a request (its request id: chat, media, or the request that submitted a
   * job), of a job (its id, `video_…`/`music_…`) or the charge of one ledger row (txn_…), once.
   * With `accountId`, only a charge of that account (another's is not found, as everywhere).
   * ChargeNotFoundError when there is no such charge, AlreadyRefundedError the second time.
   */
  async refund(input: ChargeReference & { accountId?: string; reason: string | null; actor: string }): Promise<RefundResult> {
    const named = 'transactionId' in input ? input.transactionId : input.reference;
    const charge = 'transactionId' in input ? await this.findChargeRow(input.transactionId) : await this.findCharge(input.reference);
    if (input.accountId !== undefined && charge.account_id !== input.accountId) throw new ChargeNotFoundError(named, `no charge "${named}" in account ${input.accountId}`);
    const amountUnits = -unitsFromSql(charge.amount_units);
    try {
      return await this.db.transaction(async (trx) => {
        const description = `refund of ${charge.request_id ?? charge.hold_id}${input.reason ? `: ${input.reason}` : ''}`;
        const { transactionId, balanceUnits } = await this.ledger.credit(charge.account_id, amountUnits, 'refund', {
          within: trx,
          holdId: charge.hold_id,
          model: charge.model,
          requestId: charge.request_id,
          description: description.slice(0, 500),
        });
        const auditId = await writeAudit(
          trx,
          {
            actor: input.actor,
            action: 'balance.refund',
            target: charge.jobId ?? charge.request_id ?? charge.hold_id,
            accountId: charge.account_id,
            details: {
              amount_rub: formatRub(amountUnits),
              reason: input.reason,
              request_id: charge.request_id,
              job_id: charge.jobId,
              hold_id: charge.hold_id,
              charge_transaction_id: `txn_${charge.id}`,
              transaction_id: `txn_${transactionId}`,
              balance_rub: formatRub(balanceUnits),
            },
          },
          this.now(),
        );
        return {
          transactionId,
          accountId: charge.account_id,
          amountUnits,
          balanceUnits,
          auditId,
          requestId: charge.request_id,
          jobId: charge.jobId,
          holdId: charge.hold_id,
          chargeTransactionId: String(charge.id),
        };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyRefundedError(named);
      throw error;
    }
  }

  /** The one charge of a job (by id) or of a request (by request id). */
  private async findCharge(reference: string): Promise<ChargeRow & { jobId: string | null }> {
    const job: { id: string; hold_id: string | null } | undefined = await this.db('jobs').select('id', 'hold_id').where({ id: reference }).first();
    const query = this.db('ledger_transactions').select('id', 'account_id', 'amount_units', 'hold_id', 'model', 'request_id').where({ kind: 'charge' });
    if (job) {
      if (job.hold_id === null) throw new ChargeNotFoundError(reference);
      query.where({ hold_id: job.hold_id });
    } else query.where({ request_id: reference });
    const charges: ChargeRow[] = await query.orderBy('id').limit(2);
    if (charges.length === 0) throw new ChargeNotFoundError(reference);
    if (charges.length > 1) throw new AmbiguousChargeError(reference, await this.countCharges(reference));
    const charge = charges[0]!;
    if (charge.hold_id === null) throw new ChargeNotFoundError(reference); // every charge settles a hold; a row without one is not a charge to refund
    const jobId = job?.id ?? ((await this.db('jobs').select('id').where({ hold_id: charge.hold_id }).first()) as { id: string } | undefined)?.id ?? null;
    return { ...charge, hold_id: charge.hold_id, jobId };
  }

  /** The charge of one ledger row (txn_…); a row of another kind is no charge to refund. */
  private async findChargeRow(transactionId: string): Promise<ChargeRow & { jobId: string | null }> {
    const id = transactionNumber(transactionId);
    if (id === undefined) throw new ChargeNotFoundError(transactionId, `no ledger transaction "${transactionId}" (ids look like txn_123)`);
    const row: (ChargeRow & { kind: string }) | undefined = await this.db('ledger_transactions').select('id', 'kind', 'account_id', 'amount_units', 'hold_id', 'model', 'request_id').where({ id }).first();
    if (!row) throw new ChargeNotFoundError(transactionId, `no ledger transaction "${transactionId}"`);
    if (row.kind !== 'charge' || row.hold_id === null) throw new ChargeNotFoundError(transactionId, `ledger transaction "${transactionId}" is a ${row.kind}, not a charge: only charges are refunded`);
    const job = (await this.db('jobs').select('id').where({ hold_id: row.hold_id }).first()) as { id: string } | undefined;
    const { kind: _kind, ...charge } = row;
    return { ...charge, hold_id: row.hold_id, jobId: job?.id ?? null };
  }

  private async countCharges(requestId: string): Promise<number> {
    const row = await this.db('ledger_transactions').where({ kind: 'charge', request_id: requestId }).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }
}

interface ChargeRow {
  id: string | number;
  account_id: string;
  amount_units: string | number;
  hold_id: string;
  model: string | null;
  request_id: string | null;
}
