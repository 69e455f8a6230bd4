// Holds of requests that died with their process. Every process that places request holds
// (`serve`) registers a row in `instances` and beats its heartbeat every `holds.heartbeat_interval`;
// each of its holds carries its instance id (one more value in the hold statement: no extra
// query on the hot path). Any live process sweeps, every interval, the active holds whose owner
// has not beaten for `holds.owner_gone_after`, and releases them — after a kill -9 the
// account's available balance is whole again within seconds, not after holds.ttl (which stays
// the last resort, for holds of no instance or of one that never stopped beating).
//
// A live process's holds are never released by a peer, however long its request runs: only a
// missing heartbeat counts. A database outage stops EVERY process's heartbeat, so staleness
// alone would let the first process back after an outage release its live peers' holds. A
// process therefore sweeps only once its own heartbeats have succeeded for a whole
// `owner_gone_after` in a row: over that window the database answered, so a live peer (which
// beats every interval) has beaten too. The first sweep after a start comes after that window.
// Job holds carry no instance (their job settles or releases them; the runner's leases
// recover a dead runner's jobs) and are never touched here.
//
// The row also says where the process keeps file bytes (blob_store). On PostgreSQL a process
// registers only once `admit` accepted the live instances it finds, under a lock that makes
// starts one at a time (src/storage/shared-storage.ts: refusing local storage across machines).
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import { isPostgres } from '../db/dialect.js';
import type { Logger } from '../observability/logger.js';
import { newId } from '../util/ids.js';
import type { Ledger } from './ledger.js';

export interface HoldOwnerOptions {
  readonly heartbeatMs: number;
  readonly goneAfterMs: number;
  readonly now?: () => number;
  /** Holds released per sweep at most (the next sweep takes the rest). */
  readonly sweepLimit?: number;
  /** The machine recorded in the row (default: the OS host name). */
  readonly hostname?: string;
  /** Where this process keeps file bytes, recorded in the row (src/storage/shared-storage.ts). */
  readonly blobStore?: string;
  /**
   * On PostgreSQL, called at register() with the other live instances (heartbeat newer than
   * goneAfterMs); throwing refuses the start and nothing is written.
   */
  readonly admit?: (others: readonly LiveInstanceRow[]) => void;
}

/** Another instance's row, as register() hands it to `admit`. */
export interface LiveInstanceRow {
  readonly id: string;
  readonly hostname: string;
  readonly pid: number;
  readonly blob_store: string | null;
}

/** Any constant: the advisory lock that makes registrations (check, then insert) one at a time. */
const registrationLock = 7_301_162_016;

/** This process as the owner of the holds its requests place. */
export class HoldOwner {
  readonly id = newId('inst');
  private readonly now: () => number;
  /** Since when every heartbeat succeeded (undefined: the last one failed, or none yet). */
  private healthySince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> = Promise.resolve();
  /** The address this process serves on, once announce()d (null: a worker, or not listening yet). */
  private url: string | null = null;

  constructor(
    private readonly db: Knex,
    private readonly ledger: Ledger,
    private readonly logger: Logger,
    private readonly options: HoldOwnerOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Writes this process's row (before it places any hold). On PostgreSQL, first hands the live
   * instances to `admit`, under a transaction-scoped advisory lock: two instances starting at
   * once are checked one after the other, so the second sees the first.
   */
  async register(): Promise<void> {
    const now = this.now();
    const { admit } = this.options;
    if (admit && isPostgres(this.db)) {
      await this.db.transaction(async (trx) => {
        await trx.raw('SELECT pg_advisory_xact_lock(?)', [registrationLock]);
        const others: LiveInstanceRow[] = await trx('instances')
          .where('heartbeat_at', '>=', now - this.options.goneAfterMs)
          .andWhereNot('id', this.id)
          .select('id', 'hostname', 'pid', 'blob_store')
          .orderBy('started_at');
        admit(others.map((row) => ({ ...row, pid: Number(row.pid) })));
        await trx('instances').insert(this.row(now));
      });
    } else {
      await this.db('instances').insert(this.row(now));
    }
    this.healthySince = now;
  }

  /**
   * Records the address this process serves on in its row (a `serve`, once listening): `cabinet
   * link` prints links to it when cabinet.public_url is not set, and a second serve refused on
   * one SQLite file names it (src/process/running-serves.ts).
   */
  async announce(url: string): Promise<void> {
    this.url = url.slice(0, 1024);
    await this.db('instances').where({ id: this.id }).update({ url: this.url });
  }

  private row(now: number) {
    return {
      id: this.id,
      hostname: (this.options.hostname ?? hostname()).slice(0, 255),
      pid: process.pid,
      started_at: now,
      heartbeat_at: now,
      blob_store: this.options.blobStore?.slice(0, 1024) ?? null,
      url: this.url,
    };
  }

  /** Beats and sweeps every heartbeat interval until stop(); the first sweep runs now. */
  start(): void {
    let busy = false;
    const tick = () => {
      if (busy) return; // a beat waiting on a hung connection: the next tick is skipped, not queued
      busy = true;
      this.ticking = (async () => {
        await this.beat();
        await this.sweep().catch((error: unknown) => this.logger.error({ err: error }, 'hold owner sweep failed'));
      })().finally(() => (busy = false));
    };
    this.timer = setInterval(tick, this.options.heartbeatMs);
    this.timer.unref();
    tick();
  }

  /** Updates this process's heartbeat (re-registering if a peer removed its row). Never throws. */
  async beat(): Promise<void> {
    const now = this.now();
    try {
      const updated = await this.db('instances').where({ id: this.id }).update({ heartbeat_at: now });
      if (updated === 0) {
        // A peer saw no heartbeat for owner_gone_after (a long outage or a frozen process) and
        // may have released this process's holds: settles of those find them closed.
        this.logger.error({ instance: this.id }, 'this process was taken for dead by a peer: its holds may have been released; registering again');
        await this.db('instances').insert(this.row(now));
      }
      this.healthySince ??= now;
    } catch (error) {
      if (this.healthySince !== undefined) this.logger.warn({ err: error, instance: this.id }, 'heartbeat failed');
      this.healthySince = undefined;
    }
  }

  /**
   * Releases the active holds of instances whose heartbeat is older than owner_gone_after, and
   * forgets such instances once none of their holds is active. Returns how many were released;
   * 0 without looking while this process has not itself beaten for a whole window.
   */
  async sweep(): Promise<number> {
    const now = this.now();
    const { goneAfterMs } = this.options;
    if (this.healthySince === undefined || now - this.healthySince < goneAfterMs) return 0;
    const cutoff = now - goneAfterMs;
    // Through the partial index of active holds (holds_active_expiry): they are the few in flight.
    const orphaned: { id: string; instance_id: string }[] = await this.db('holds')
      .join('instances', 'instances.id', 'holds.instance_id')
      .where('holds.status', 'active')
      .andWhere('instances.heartbeat_at', '<', cutoff)
      .andWhereNot('instances.id', this.id)
      .select('holds.id', 'holds.instance_id')
      .limit(this.options.sweepLimit ?? 1_000);
    let released = 0;
    for (const hold of orphaned) if (await this.ledger.release(hold.id)) released++;
    if (released > 0) {
      const instances = [...new Set(orphaned.map((hold) => hold.instance_id))];
      this.logger.warn({ released, instances }, 'released the holds of requests whose process is gone');
    }
    await this.db('instances')
      .where('heartbeat_at', '<', cutoff)
      .andWhereNot('id', this.id)
      .whereNotExists((query) => query.select(this.db.raw('1')).from('holds').where('holds.status', 'active').andWhereRaw('holds.instance_id = instances.id'))
      .delete();
    return released;
  }

  /**
   * Stops beating. `forget`: remove this process's row — only when none of its holds is still
   * active (settles that could not land stay active and are released by a peer's sweep once
   * this row goes stale, or by holds.ttl).
   */
  async stop(options: { forget: boolean }): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
    if (!options.forget) return;
    await this.db('instances')
      .where({ id: this.id })
      .whereNotExists((query) => query.select(this.db.raw('1')).from('holds').where('holds.status', 'active').andWhereRaw('holds.instance_id = instances.id'))
      .delete()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not remove this instance row'));
  }
}

/**
 * Releases the active holds of a process known to be dead (a `serve --workers N` primary saw its
 * worker exit: the operating system says so, no heartbeat needs to go stale first) and forgets
 * its instance rows. Only for a process on this machine whose exit was observed: a live owner's
 * holds must never be released (see the top of this file). Returns how many were released.
 */
export async function releaseHoldsOfExitedProcess(db: Knex, ledger: Ledger, owner: { readonly hostname: string; readonly pid: number }): Promise<number> {
  const instances: { id: string }[] = await db('instances').where({ hostname: owner.hostname.slice(0, 255), pid: owner.pid }).select('id');
  let released = 0;
  for (const { id } of instances) {
    const holds: { id: string }[] = await db('holds').where({ instance_id: id, status: 'active' }).select('id');
    for (const hold of holds) if (await ledger.release(hold.id)) released++;
    await db('instances')
      .where({ id })
      .whereNotExists((query) => query.select(db.raw('1')).from('holds').where('holds.status', 'active').andWhereRaw('holds.instance_id = instances.id'))
      .delete();
  }
  return released;
}
