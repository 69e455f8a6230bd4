// The charge envelope: the one path a billable operation's money takes, for chat, media and
// jobs alike.
//   open   — the key checked as it is now (its revision, so a key changed since the caller read
//            it is read again and the operation re-checked against it), the hold placed against
//            the balance and the key's budget, in one statement on the common path;
//   settle — the charge (capped at the hold) and its usage record, built here from one shape
//            (usage-record.ts), in one commit; or release, when nothing is owed.
// Outside a transaction every write goes through PendingSettles, so a settle the database cannot
// take now is retried in the background; a job's hold, settle and release run inside the job
// row's own transaction (the `…Within` functions). Nothing else calls Ledger.hold, settle or
// release for billable work (test/billing/one-money-path.test.ts).
import type { Knex } from 'knex';
import type { ApiKey } from '../auth/api-keys.js';
import { keyBudget } from '../auth/key-policy.js';
import type { Usage } from '../model/chat.js';
import type { Logger } from '../observability/logger.js';
import { noopRequestTrace, type RequestTrace } from '../observability/tracer.js';
import { KeyChangedError } from '../auth/key-errors.js';
import { HoldClosedError, InsufficientBalanceError } from './errors.js';
import type { Hold, Settlement } from './ledger.js';
import type { PendingSettles } from './pending-settles.js';
import { buildUsageRecord, type UsageFacts, type UsageOwner, type UsageRecord } from './usage-record.js';

/** What the envelope works with: a serving process's services satisfy it. */
export interface ChargeServices {
  readonly settles: PendingSettles;
  readonly apiKeys: {
    /** The key as stored now (KeyNotLiveError when revoked). */
    refresh(keyId: string): Promise<ApiKey>;
    /** Why the key may not be used now, or null (a free operation's check). */
    refusal(keyId: string, revision?: number): Promise<Error | null>;
  };
  /** Where an uncharged operation's record goes (batched). */
  readonly usageRecords: { record(entry: UsageRecord): void };
  readonly holdOwner: { readonly id: string };
  readonly config: { readonly holds: { readonly ttlMs: number } };
  readonly logger: Logger;
  readonly now: () => number;
}

/** Who is charged, for what. */
export interface ChargeRequest {
  readonly key: ApiKey;
  readonly model: string;
  readonly requestId: string;
  /** The hold's and charge's line in the history. */
  readonly description: string;
  /**
   * Checks the operation against the key as it is now, when the hold found the caller's copy
   * stale (`keys update` since it was cached): usable from this address, scopes, models. Throws to refuse.
   */
  readonly recheck: (fresh: ApiKey) => void;
  /** The request's trace: the hold and the settle are its child spans. */
  readonly trace?: RequestTrace;
}

export interface OpenOptions {
  /**
   * When the balance does not cover the amount: a smaller amount to hold instead (chat's output
   * budget clamped to the balance), or throw to refuse. Without it the refusal is thrown as it is.
   */
  readonly whenShort?: (refusal: InsufficientBalanceError) => bigint;
}

/** Runs `attempt` with the caller's key, and again with the key read anew (and re-checked) each time the hold finds it changed. */
export async function withCurrentKey<T>(services: Pick<ChargeServices, 'apiKeys'>, request: ChargeRequest, attempt: (key: ApiKey) => Promise<T>): Promise<T> {
  let key = request.key;
  for (;;) {
    try {
      return await attempt(key);
    } catch (error) {
      if (!(error instanceof KeyChangedError)) throw error;
      key = await services.apiKeys.refresh(key.id);
      request.recheck(key);
    }
  }
}

/**
 * Opens the charge of one operation: holds `amountUnits` (nothing for a free operation, whose key
 * is then checked on its own). The returned charge is settled or released exactly once.
 */
export async function openCharge(services: ChargeServices, request: ChargeRequest, amountUnits: bigint, options: OpenOptions = {}): Promise<Charge> {
  const span = (request.trace ?? noopRequestTrace).hold();
  try {
    const charge = await withCurrentKey(services, request, async (key) => {
      if (amountUnits === 0n) {
        const refusal = await services.apiKeys.refusal(key.id, key.revision);
        if (refusal) throw refusal;
        return new Charge(services, request, key, undefined);
      }
      return new Charge(services, request, key, await holdWithFallback(services, request, key, amountUnits, options));
    });
    span.amount(charge.heldUnits);
    span.end();
    return charge;
  } catch (error) {
    span.end(error);
    throw error;
  }
}

async function holdWithFallback(services: ChargeServices, request: ChargeRequest, key: ApiKey, amountUnits: bigint, options: OpenOptions): Promise<Hold> {
  const place = (amount: bigint) => {
    const budget = keyBudget(key, services.now());
    return services.settles.hold(key.accountId, amount, {
      ttlMs: services.config.holds.ttlMs,
      model: request.model,
      keyId: key.id,
      keyRevision: key.revision,
      instanceId: services.holdOwner.id,
      requestId: request.requestId,
      description: request.description,
      ...(budget ? { budget } : {}),
    });
  };
  try {
    return await place(amountUnits);
  } catch (error) {
    if (!(error instanceof InsufficientBalanceError) || !options.whenShort) throw error;
    return place(options.whenShort(error));
  }
}

/** An opened charge: settled or released once. */
export class Charge {
  private closed = false;

  constructor(
    private readonly services: ChargeServices,
    private readonly request: ChargeRequest,
    /** The key as the hold checked it (read again when it had changed). */
    readonly key: ApiKey,
    readonly hold: Hold | undefined,
  ) {}

  get heldUnits(): bigint {
    return this.hold?.amountUnits ?? 0n;
  }

  private get owner(): UsageOwner {
    return { requestId: this.request.requestId, accountId: this.key.accountId, keyId: this.key.id, model: this.request.model };
  }

  /**
   * Charges `actualUnits` (never above the hold: the excess is not charged) with the operation's
   * usage record, in one commit. Without a hold (a free operation) the record is written
   * uncharged. `billed`: the tokens, for the settle's span.
   */
  async settle(actualUnits: bigint, facts: UsageFacts, billed?: Usage): Promise<Settlement> {
    this.close();
    const record = buildUsageRecord(this.owner, facts, this.services.now());
    const span = (this.request.trace ?? noopRequestTrace).settle();
    let settlement: Settlement = { chargedUnits: 0n, capped: false };
    try {
      if (this.hold) settlement = await this.services.settles.settle(this.hold, actualUnits, { requestId: this.request.requestId, model: this.request.model, usage: record });
      else this.services.usageRecords.record({ ...record, cost_units: 0 });
    } catch (error) {
      span.end(error);
      throw error;
    }
    if (settlement.capped) this.services.logger.warn({ request_id: this.request.requestId, model: this.request.model, actual_units: String(actualUnits), held_units: String(this.heldUnits) }, 'charge capped at the hold: the estimate was too low');
    span.amount(settlement.chargedUnits);
    if (billed) span.billed(billed, facts.estimated ?? false);
    span.end();
    return settlement;
  }

  /** Gives the hold back, charging nothing. `facts`: a record of what was tried, written uncharged (chat keeps one for every request). */
  async release(facts?: UsageFacts): Promise<void> {
    this.close();
    const span = facts ? (this.request.trace ?? noopRequestTrace).settle() : undefined;
    if (this.hold) await this.services.settles.release(this.hold.id);
    if (facts) this.services.usageRecords.record({ ...buildUsageRecord(this.owner, facts, this.services.now()), cost_units: 0 });
    span?.amount(0n);
    span?.end();
  }

  private close(): void {
    if (this.closed) throw new Error(`the charge of ${this.request.requestId} was already closed`);
    this.closed = true;
  }
}

/**
 * A job's hold, placed inside the transaction that creates its row (both or neither). It lives
 * past the job's deadline (`ttlMs`): the runner ends the job, and releases, first. No owner
 * instance: a job's hold is its job's, whichever process runs it.
 */
export function holdForJob(settles: PendingSettles, trx: Knex.Transaction, request: Omit<ChargeRequest, 'recheck'> & { readonly key: ApiKey }, amountUnits: bigint, ttlMs: number, now: number): Promise<Hold> {
  const budget = keyBudget(request.key, now);
  return settles.holdWithin(trx, request.key.accountId, amountUnits, {
    ttlMs,
    keyId: request.key.id,
    keyRevision: request.key.revision,
    model: request.model,
    requestId: request.requestId,
    description: request.description,
    ...(budget ? { budget } : {}),
  });
}

/**
 * A completed job's charge and usage record, in its end's transaction. A hold swept anyway (it
 * outlives the deadline by design) charges nothing: the job is delivered uncharged rather than
 * stuck, the sweep having given the money back.
 */
export async function settleJob(settles: PendingSettles, trx: Knex.Transaction, holdId: string, actualUnits: bigint, owner: UsageOwner, facts: UsageFacts, now: number): Promise<bigint> {
  try {
    const settlement = await settles.settleWithin(trx, holdId, actualUnits, { requestId: owner.requestId, model: owner.model, usage: buildUsageRecord(owner, facts, now) });
    return settlement.chargedUnits;
  } catch (error) {
    if (error instanceof HoldClosedError) return 0n;
    throw error;
  }
}

/** A failed or cancelled job's hold given back, in its end's transaction. */
export function releaseJob(settles: PendingSettles, trx: Knex.Transaction, holdId: string): Promise<void> {
  return settles.releaseWithin(trx, holdId);
}
