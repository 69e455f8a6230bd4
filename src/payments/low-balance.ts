// Low-balance notices (docs/payments.md, "Low balance"): when an account's available money
// (balance − held) falls below its threshold (its own, else low_balance.default_threshold_rub),
// its owners get one email each, in their language, and — when the account set a webhook URL —
// one signed webhook. The next notice comes only after the money was back at or above the
// threshold and fell again.
//
// `check` runs periodically, off the request path, in every serve and worker
// (src/process/low-balance-sweep.ts), and is safe to run anywhere at once:
// 1. arm: accounts whose money is at or above their threshold are armed (one UPDATE);
// 2. notify: each armed account below its threshold is disarmed by ONE conditional UPDATE
//    (armed, and still below): only the check whose UPDATE changed the row notifies, so two
//    instances notify once. The webhook is queued in the same transaction (webhook_deliveries,
//    as a job's: the job runner delivers it, signed with the account's webhook secret, retried
//    on failure, the same webhook-id every time); the emails go after the commit (at most once:
//    a process killed in between sends none).
// An account starts disarmed: one that was never seen at or above its threshold (a new sign-up
// with nothing on it) gets no notice. A disabled account is not notified (it stays armed).
import type { Knex } from 'knex';
import { formatRub, unitsFromSql, unitsToSql } from '../util/money.js';
import type { Mailer } from '../email/mailer.js';
import { lowBalanceEmail } from '../email/templates/low-balance.js';
import { enqueueWebhook } from '../jobs/webhooks.js';
import type { Logger } from '../observability/logger.js';
import { newId } from '../util/ids.js';

export interface LowBalanceContext {
  readonly db: Knex;
  /** Undefined without `email`: then only webhooks go. */
  readonly mailer: Mailer | undefined;
  readonly logger: Logger;
  /** low_balance.default_threshold_rub; undefined: only accounts with their own threshold are looked at. */
  readonly defaultThresholdUnits: bigint | undefined;
  /** cabinet.public_url: the email's top-up link. */
  readonly publicUrl: string;
  readonly now: () => number;
}

/** The webhook's body (`type` tells it from a job's). */
export interface LowBalanceEvent {
  readonly id: string;
  readonly object: 'event';
  readonly type: 'account.low_balance';
  /** Unix seconds. */
  readonly created_at: number;
  readonly data: { account_id: string; balance_rub: string; held_rub: string; available_rub: string; threshold_rub: string };
}

interface DueRow {
  id: string;
  name: string;
  threshold_units: string | number;
}

export class LowBalanceNotices {
  constructor(private readonly context: LowBalanceContext) {}

  /** The effective threshold as SQL: the account's own, else the configured default. */
  private threshold(): { sql: string; bindings: number[] } {
    const { defaultThresholdUnits } = this.context;
    // Bound as a number: SQLite compares an integer with a text value as always smaller.
    return defaultThresholdUnits === undefined ? { sql: 'low_balance_threshold_units', bindings: [] } : { sql: 'coalesce(low_balance_threshold_units, ?)', bindings: [unitsToSql(defaultThresholdUnits)] };
  }

  /** Restricts `query` to accounts with a threshold whose available money compares to it by `comparison`. */
  private comparing(query: Knex.QueryBuilder, comparison: '<' | '>='): Knex.QueryBuilder {
    const threshold = this.threshold();
    if (this.context.defaultThresholdUnits === undefined) query.whereNotNull('low_balance_threshold_units');
    return query.whereRaw(`balance_units - held_units ${comparison} ${threshold.sql}`, threshold.bindings);
  }

  /** One round: arms, then notifies up to `limit` accounts. How many of each. */
  async check(limit = 100): Promise<{ armed: number; notified: number }> {
    const { db } = this.context;
    const threshold = this.threshold();
    const armed = Number(await this.comparing(db('accounts').where({ low_balance_armed: false }), '>=').update({ low_balance_armed: true }));
    const due: DueRow[] = await this.comparing(db('accounts').where({ low_balance_armed: true }).whereNull('disabled_at'), '<')
      .select('id', 'name', db.raw(`${threshold.sql} as threshold_units`, threshold.bindings))
      .orderBy('id')
      .limit(limit);
    let notified = 0;
    for (const row of due) if (await this.notify(row)) notified++;
    return { armed, notified };
  }

  /** Claims the notice of one account (the conditional UPDATE) and sends it; false when another check claimed it, or the money rose meanwhile. */
  private async notify(row: DueRow): Promise<boolean> {
    const { db, logger } = this.context;
    const at = this.context.now();
    const thresholdUnits = unitsFromSql(row.threshold_units);
    const noticeId = newId('lbn');
    const claimed = await db.transaction(async (trx) => {
      const rows: { balance_units: string | number; held_units: string | number; low_balance_webhook_url: string | null }[] = await this.comparing(
        trx('accounts').where({ id: row.id, low_balance_armed: true }),
        '<',
      )
        .update({ low_balance_armed: false, low_balance_notified_at: at })
        .returning(['balance_units', 'held_units', 'low_balance_webhook_url']);
      const account = rows[0];
      if (!account) return undefined;
      const balanceUnits = unitsFromSql(account.balance_units);
      const heldUnits = unitsFromSql(account.held_units);
      const event: LowBalanceEvent = {
        id: noticeId,
        object: 'event',
        type: 'account.low_balance',
        created_at: Math.floor(at / 1000),
        data: { account_id: row.id, balance_rub: formatRub(balanceUnits), held_rub: formatRub(heldUnits), available_rub: formatRub(balanceUnits - heldUnits), threshold_rub: formatRub(thresholdUnits) },
      };
      // The delivery row's job_id holds the notice's id: one delivery per notice, like one per job.
      if (account.low_balance_webhook_url !== null) await enqueueWebhook(trx, { jobId: noticeId, accountId: row.id, url: account.low_balance_webhook_url, payload: event }, at);
      return { availableUnits: balanceUnits - heldUnits, webhook: account.low_balance_webhook_url !== null };
    });
    if (!claimed) return false;
    const emailed = await this.emailOwners(row, claimed.availableUnits, thresholdUnits);
    logger.info(
      { account_id: row.id, notice_id: noticeId, available_rub: formatRub(claimed.availableUnits), threshold_rub: formatRub(thresholdUnits), emails: emailed, webhook: claimed.webhook },
      'low-balance notice sent',
    );
    return true;
  }

  /** One email to each owner with a confirmed address, in their language; how many went. A failure is logged (the user id, never the address). */
  private async emailOwners(row: DueRow, availableUnits: bigint, thresholdUnits: bigint): Promise<number> {
    const { db, mailer, logger, publicUrl } = this.context;
    if (mailer === undefined) return 0;
    const owners: { id: string; email: string; locale: string }[] = await db('account_members as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.account_id': row.id, 'm.role': 'owner' })
      .whereNotNull('u.email')
      .whereNotNull('u.email_verified_at')
      .whereNull('u.disabled_at')
      .orderBy('u.id')
      .select('u.id', 'u.email', 'u.locale');
    let sent = 0;
    for (const owner of owners) {
      const email = lowBalanceEmail({ accountName: row.name, availableUnits, thresholdUnits, topupLink: `${publicUrl}/cabinet/topup`, locale: owner.locale === 'ru' ? 'ru' : 'en' });
      try {
        await mailer.send({ to: owner.email, subject: email.subject, text: email.text });
        sent++;
      } catch (error) {
        logger.warn({ user_id: owner.id, account_id: row.id, err: error instanceof Error ? error.message : String(error) }, 'a low-balance email could not be sent');
      }
    }
    return sent;
  }
}
