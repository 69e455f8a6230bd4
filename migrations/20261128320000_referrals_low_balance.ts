// Referrals and low-balance notices (issue 32; docs/payments.md, "Referrals" and "Low balance").
//
// - accounts.referral_code: the code of the account's referral link (`/cabinet/signup?ref=<code>`),
//   8 characters, unique. Made on the first read of GET /cabinet/api/referral (src/referrals/
//   referral-codes.ts), so existing accounts need no backfill and accounts that never share a
//   link never get one.
// - accounts.referred_by / referred_at: the account whose link this account signed up through,
//   and when; written once, in the sign-up transaction (src/referrals/referral-binding.ts). No
//   foreign key: adding one to an existing table makes knex rebuild the SQLite table (accounts
//   carries the balance CHECK constraints); accounts are never deleted, so the id stays good.
//   Indexed for the referrer's count of referred accounts.
// - accounts.low_balance_threshold_units: the account's own threshold (NULL: low_balance.
//   default_threshold_rub, or none); low_balance_webhook_url: where the signed notice also goes.
// - accounts.low_balance_armed: whether the next fall below the threshold is notified. It is set
//   when a check sees the available money at or above the threshold and cleared, with
//   low_balance_notified_at, by the ONE conditional UPDATE that claims a notice (src/payments/
//   low-balance.ts): a fall is notified once, however many instances check. New and existing
//   accounts start disarmed: an account that was never above its threshold gets no notice.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (table) => {
    table.string('referral_code', 16).nullable().unique({ indexName: 'accounts_referral_code' });
    table.string('referred_by', 40).nullable().index('accounts_referred_by');
    table.bigInteger('referred_at').nullable();
    table.bigInteger('low_balance_threshold_units').nullable();
    table.string('low_balance_webhook_url', 2048).nullable();
    table.boolean('low_balance_armed').notNullable().defaultTo(false);
    table.bigInteger('low_balance_notified_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS accounts_referral_code');
  await knex.raw('DROP INDEX IF EXISTS accounts_referred_by');
  for (const column of ['low_balance_notified_at', 'low_balance_armed', 'low_balance_webhook_url', 'low_balance_threshold_units', 'referred_at', 'referred_by', 'referral_code']) {
    await knex.raw(`ALTER TABLE accounts DROP COLUMN ${column}`);
  }
}
