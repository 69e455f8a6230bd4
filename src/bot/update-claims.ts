// An update is handled once, by its update_id (docs/bot.md): Telegram retries a webhook delivery
// it thinks failed, and a retried delivery may race the first. The INSERT of (bot id, update_id)
// is the claim: the primary key lets one of two racing copies in, the other sees a conflict and
// drops its copy. Rows older than a day are removed by `pruneClaims` (Telegram gives up on an
// update long before).
import type { Knex } from 'knex';

/** How long a claim is kept. */
export const claimKeptMs = 86_400_000;

/** True when this copy of the update is the first: handle it; false: it was handled already. */
export async function claimUpdate(db: Knex, botId: string, updateId: number, now: number): Promise<boolean> {
  // RETURNING names the row only when this INSERT put it there (both SQLite and PostgreSQL).
  const inserted = await db('bot_updates').insert({ bot_id: botId, update_id: updateId, received_at: now }).onConflict(['bot_id', 'update_id']).ignore().returning('update_id');
  return inserted.length === 1;
}

export async function pruneClaims(db: Knex, now: number): Promise<number> {
  return db('bot_updates').where('received_at', '<', now - claimKeptMs).delete();
}
