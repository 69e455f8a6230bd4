// One running bot per token (docs/bot.md, "One bot per token"): two processes taking updates for
// one bot would answer every message twice, or fight over the webhook. A bot holds the row of
// its bot id in bot_locks and renews heartbeat_at every bot.lock_heartbeat, the way serving
// processes beat in `instances` (src/billing/hold-owners.ts). Another process may take the row
// only once the heartbeat is older than three intervals: the holder was killed without a word.
// A second bot beside a live one refuses to start (bot_already_running), naming the holder.
// The take-over is a conditional UPDATE on the heartbeat it read: of two racing takers one wins.
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import { GatewayError } from '../errors/gateway-error.js';
import { newId } from '../util/ids.js';

/** Missed heartbeats after which a holder counts as gone. */
const missedBeats = 3;

interface LockRow {
  bot_id: string;
  owner: string;
  hostname: string;
  pid: number;
  heartbeat_at: number | string;
}

export interface BotLock {
  readonly owner: string;
  /** Stops the heartbeat and removes the row (a graceful stop: the next bot starts at once). */
  release(): Promise<void>;
}

export async function lockBot(
  db: Knex,
  botId: string,
  options: { heartbeatMs: number; now: () => number; onLost?: () => void; logger?: { warn(fields: object, message: string): void } },
): Promise<BotLock> {
  const owner = newId('bot');
  const mine = { bot_id: botId, owner, hostname: hostname(), pid: process.pid };
  const now = options.now();
  await db('bot_locks').insert({ ...mine, heartbeat_at: now }).onConflict('bot_id').ignore();
  const got = await db<LockRow>('bot_locks').where({ bot_id: botId }).first();
  if (got?.owner !== owner) {
    if (!got) throw new Error('the bot lock row vanished while it was taken');
    const staleBefore = now - missedBeats * options.heartbeatMs;
    const taken = Number(got.heartbeat_at) < staleBefore ? await db('bot_locks').where({ bot_id: botId, owner: got.owner, heartbeat_at: got.heartbeat_at }).update({ ...mine, heartbeat_at: now }) : 0;
    if (taken !== 1) {
      throw new GatewayError(
        'bot_already_running',
        `another bot process holds bot ${botId} (pid ${got.pid} on ${got.hostname}, last seen ${new Date(Number(got.heartbeat_at)).toISOString()}); two would take every update twice. Stop it first; a process killed without stopping is taken over ${(missedBeats * options.heartbeatMs) / 1000} s after its last heartbeat.`,
      );
    }
  }
  const timer = setInterval(() => {
    db('bot_locks')
      .where({ bot_id: botId, owner })
      .update({ heartbeat_at: options.now() })
      .then(
        (updated) => {
          if (updated === 0) {
            options.logger?.warn({ bot_id: botId }, 'another process took over this bot (its heartbeat was missed): stopping the bot');
            options.onLost?.();
          }
        },
        (error: unknown) => options.logger?.warn({ err: error, bot_id: botId }, "the bot's heartbeat could not be written"),
      );
  }, options.heartbeatMs);
  timer.unref();
  return {
    owner,
    async release() {
      clearInterval(timer);
      await db('bot_locks').where({ bot_id: botId, owner }).delete();
    },
  };
}
