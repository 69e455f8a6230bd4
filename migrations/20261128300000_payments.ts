// Money coming in (issue 32): customers' payments through a provider, and the rule that every
// credit is written once, keyed by where it came from.
//
// - ledger_transactions.source: what a credit is for, unique: `payment:<provider>:<provider's
//   payment id>` for a top-up, `payment-bonus:…` for its tier bonus, `referral:…`,
//   `code:<code id>:<account id>`, `payment-refund:<refund id>` and so on (src/payments/
//   credit-sources.ts). A replayed, concurrent or out-of-order notification, a sweeper racing a
//   webhook, a second instance: the second insert of one source fails on the index and rolls
//   its transaction back, so the balance moves once. NULL for charges, holds' refunds and the
//   operator's corrections (a unique index admits many NULLs on both databases).
// - payments: one attempt of a customer to pay. provider_payment_id is unique per provider
//   once the provider has answered. status: pending (created at the provider, not paid) |
//   succeeded (credited) | cancelled | refunded (wholly refunded). amount_units is the RUB the
//   customer asked to add; amount_minor what the provider charges in its currency's minor unit
//   (kopecks, cents); credited_units what the ledger got (for another currency: amount × rate,
//   rounded down once to 0.0001 RUB).
// - payment_refunds: a refund asked of the provider. The ledger's debit (debit_units, a
//   `refund` row keyed `payment-refund:<id>`) is written with the row, before the provider is
//   asked, so money being refunded cannot be spent meanwhile; a refund the provider refused
//   gives it back (`payment-refund-failed:<id>`). pending rows are retried by the sweeper with
//   the same idempotence key.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledger_transactions', (table) => {
    table.string('source', 160).nullable().unique({ indexName: 'ledger_one_credit_per_source' });
  });
  await knex.schema.createTable('payments', (table) => {
    table.string('id', 40).primary();
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.string('user_id', 40).nullable().references('id').inTable('users');
    table.string('provider', 20).notNullable();
    table.string('provider_payment_id', 100).nullable();
    table.string('status', 16).notNullable(); // pending | succeeded | cancelled | refunded
    table.bigInteger('amount_units').notNullable();
    table.string('currency', 3).notNullable();
    table.bigInteger('amount_minor').notNullable();
    table.string('rate', 40).nullable(); // RUB per unit of currency, as configured when created (null for RUB)
    table.bigInteger('credited_units').nullable();
    table.bigInteger('refunded_units').notNullable().defaultTo(0);
    table.bigInteger('refunded_minor').notNullable().defaultTo(0);
    table.string('confirmation_url', 2000).nullable();
    table.string('email', 320).nullable();
    table.string('locale', 2).notNullable().defaultTo('en'); // the customer's language: a create asked again says the same
    table.string('failure', 500).nullable(); // why the provider cancelled it, as it said
    table.bigInteger('created_at').notNullable();
    table.bigInteger('updated_at').notNullable();
    table.bigInteger('paid_at').nullable();
    table.unique(['provider', 'provider_payment_id'], { indexName: 'payments_provider_payment' });
    table.index(['account_id', 'created_at'], 'payments_account');
    table.index(['status', 'created_at'], 'payments_status');
  });
  await knex.schema.createTable('payment_refunds', (table) => {
    table.string('id', 40).primary();
    table.string('payment_id', 40).notNullable().references('id').inTable('payments');
    table.string('provider_refund_id', 100).nullable();
    table.string('status', 16).notNullable(); // pending | succeeded | failed
    table.bigInteger('amount_minor').notNullable();
    table.bigInteger('share_units').notNullable(); // the share of the payment's credit refunded (RUB)
    table.bigInteger('debit_units').notNullable(); // what the ledger took back: the share, or less when allowed to reach zero
    table.string('actor', 200).notNullable();
    table.string('reason', 500).nullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('updated_at').notNullable();
    table.index(['payment_id'], 'payment_refunds_payment');
    table.index(['status', 'created_at'], 'payment_refunds_status');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('payment_refunds');
  await knex.schema.dropTableIfExists('payments');
  await knex.schema.alterTable('ledger_transactions', (table) => {
    table.dropUnique(['source'], 'ledger_one_credit_per_source');
    table.dropColumn('source');
  });
}
