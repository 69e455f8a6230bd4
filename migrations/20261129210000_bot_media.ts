// The bot's media (docs/bot.md, "Images, video and music"):
// - bot_quotes: a price the bot quoted under a "Generate for X ₽" button: what to make (kind,
//   prompt) for whom (telegram_id, chat_id) at which price. The button's press takes the row
//   (taken_at set where it was null), so a double or late press runs the generation once.
// - bot_deliveries: a job the bot created (video, music) whose result it owes a chat. The bot
//   looks at the pending rows' jobs and delivers each one that ended, then marks the row; the
//   rows outlive the process, so a bot restarted while a job ran still delivers it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bot_quotes', (table) => {
    table.string('id', 40).primary();
    table.string('telegram_id', 20).notNullable();
    table.string('chat_id', 20).notNullable();
    table.string('kind', 16).notNullable();
    table.text('prompt').notNullable();
    table.bigInteger('price_units').notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('taken_at').nullable();
    table.index(['created_at'], 'bot_quotes_created');
  });
  await knex.schema.createTable('bot_deliveries', (table) => {
    table.string('job_id', 64).primary();
    table.string('telegram_id', 20).notNullable();
    table.string('chat_id', 20).notNullable();
    table.string('language', 2).notNullable();
    table.bigInteger('created_at').notNullable();
    table.integer('attempts').notNullable().defaultTo(0);
    table.bigInteger('delivered_at').nullable();
    /** delivered, link (too large: a link sent), failed (the user told), blocked (not sent), undeliverable (gave up). */
    table.string('outcome', 16).nullable();
    table.index(['delivered_at'], 'bot_deliveries_pending');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bot_deliveries');
  await knex.schema.dropTable('bot_quotes');
}
