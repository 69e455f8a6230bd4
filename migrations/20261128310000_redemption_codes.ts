// Redemption codes (issue 32; docs/payments.md, "Redemption codes"): codes the operator makes in
// batches (`gateway codes create`, the admin API) and hands out; a customer redeems one in the
// cabinet and gets a `bonus` credit once.
//
// - code_batches: what every code of a batch is worth (amount_units), how many accounts each
//   code may credit (uses_per_code), until when (expires_at, NULL: no end), and whether the
//   operator disabled the whole batch.
// - redemption_codes: one code, stored only as the sha256 of its normalized form (upper case,
//   no dashes), never the code; hint = its last four characters, to tell codes apart in a list.
//   uses_left counts down by one conditional UPDATE (`WHERE uses_left > 0`): two redemptions
//   racing for the last use cannot both win.
// - code_redemptions: who redeemed which code and the ledger row it wrote; unique per (code,
//   account), so an account redeems a code at most once, whatever races (the ledger's unique
//   source `code:<code id>:<account id>` says the same for the money).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('code_batches', (table) => {
    table.string('id', 40).primary();
    table.bigInteger('amount_units').notNullable();
    table.integer('uses_per_code').notNullable();
    table.integer('count').notNullable();
    table.bigInteger('expires_at').nullable();
    table.string('note', 200).nullable();
    table.string('created_by', 200).notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('disabled_at').nullable();
    table.check('?? > 0', ['amount_units'], 'code_batches_amount_positive');
    table.check('?? > 0', ['uses_per_code'], 'code_batches_uses_positive');
    table.index(['created_at'], 'code_batches_created');
  });
  await knex.schema.createTable('redemption_codes', (table) => {
    table.string('id', 40).primary();
    table.string('batch_id', 40).notNullable().references('id').inTable('code_batches');
    table.string('code_hash', 64).notNullable().unique({ indexName: 'redemption_codes_hash' });
    table.string('hint', 4).notNullable();
    table.integer('uses_left').notNullable();
    table.bigInteger('disabled_at').nullable();
    table.bigInteger('created_at').notNullable();
    table.check('?? >= 0', ['uses_left'], 'redemption_codes_uses_not_negative');
    table.index(['batch_id'], 'redemption_codes_batch');
  });
  await knex.schema.createTable('code_redemptions', (table) => {
    table.string('id', 40).primary();
    table.string('code_id', 40).notNullable().references('id').inTable('redemption_codes');
    table.string('batch_id', 40).notNullable().references('id').inTable('code_batches');
    table.string('account_id', 40).notNullable().references('id').inTable('accounts');
    table.string('user_id', 40).nullable();
    table.bigInteger('transaction_id').notNullable().references('id').inTable('ledger_transactions');
    table.bigInteger('created_at').notNullable();
    table.unique(['code_id', 'account_id'], { indexName: 'code_redemptions_once_per_account' });
    table.index(['batch_id'], 'code_redemptions_batch');
    table.index(['account_id'], 'code_redemptions_account');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('code_redemptions');
  await knex.schema.dropTableIfExists('redemption_codes');
  await knex.schema.dropTableIfExists('code_batches');
}
