// The Telegram bot (src/bot/, docs/bot.md):
// - bot_locks: one running bot per token. A bot (`gateway bot`, `serve --bot`) holds the row of
//   its bot id (the public part of the token) and beats heartbeat_at; another may take the row
//   only once the heartbeat is older than three intervals (a process killed without a word).
// - bot_updates: the updates handled, by (bot id, update_id): the insert is the claim, so an
//   update Telegram delivers twice (a webhook retried, two copies racing) is handled once.
//   Rows older than a day are removed (Telegram retries for far less).
// - bot_users: what the bot keeps per Telegram user: the language, the chosen text model, the
//   price display and spoken replies switches, and when they blocked the bot (deliveries stop).
//   Who the user is in the gateway is user_identities (provider `telegram`), shared with the
//   cabinet's Telegram login.
// - bot_conversations: the chat's recent turns (JSON), bounded by bot.conversation.
// - bot_link_tokens: the cabinet's "Connect Telegram" deep links, stored as their sha256, used
//   once, refused after expires_at.
// - api_keys: at most one live `bot` key per account, as for the cabinet key.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bot_locks', (table) => {
    table.string('bot_id', 40).primary();
    table.string('owner', 80).notNullable();
    table.string('hostname', 255).notNullable();
    table.integer('pid').notNullable();
    table.bigInteger('heartbeat_at').notNullable();
  });
  await knex.schema.createTable('bot_updates', (table) => {
    table.string('bot_id', 40).notNullable();
    table.bigInteger('update_id').notNullable();
    table.bigInteger('received_at').notNullable();
    table.primary(['bot_id', 'update_id']);
    table.index(['received_at'], 'bot_updates_received');
  });
  await knex.schema.createTable('bot_users', (table) => {
    table.string('telegram_id', 20).primary();
    table.string('language', 2).nullable();
    table.string('model', 200).nullable();
    table.boolean('show_price').nullable();
    table.boolean('spoken_replies').notNullable().defaultTo(false);
    table.bigInteger('blocked_at').nullable();
    table.bigInteger('updated_at').notNullable();
  });
  await knex.schema.createTable('bot_conversations', (table) => {
    table.string('chat_id', 20).primary();
    table.text('turns').notNullable();
    table.bigInteger('updated_at').notNullable();
  });
  await knex.schema.createTable('bot_link_tokens', (table) => {
    table.string('id', 40).primary();
    table.string('token_hash', 64).notNullable().unique('bot_link_tokens_token_hash');
    table.string('user_id', 40).notNullable().references('id').inTable('users');
    table.bigInteger('created_at').notNullable();
    table.bigInteger('expires_at').notNullable();
    table.bigInteger('used_at').nullable();
  });
  await knex.raw(`CREATE UNIQUE INDEX api_keys_live_bot_key ON api_keys (account_id) WHERE purpose = 'bot' AND revoked_at IS NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX api_keys_live_bot_key');
  for (const table of ['bot_link_tokens', 'bot_conversations', 'bot_users', 'bot_updates', 'bot_locks']) await knex.schema.dropTable(table);
}
