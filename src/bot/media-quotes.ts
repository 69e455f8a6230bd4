// The prices the bot quoted under a "Generate for X ₽" button (bot_quotes, docs/bot.md "Images,
// video and music"). The button's callback data is `buy:<quote id>`: Telegram's 64 bytes hold
// no prompt, so the prompt waits here. Pressing takes the row once (an UPDATE … WHERE taken_at
// IS NULL): a double press, or a press racing another, runs the generation once; a quote older
// than `quoteTtlMs` is refused as stale (prices may have changed), and the user asks again.
import type { Knex } from 'knex';
import { newId } from '../util/ids.js';
import { unitsFromSql, unitsToSql } from '../util/money.js';

export type QuoteKind = 'image' | 'video' | 'music';

export interface MediaQuote {
  readonly id: string;
  readonly telegramId: string;
  readonly chatId: number;
  readonly kind: QuoteKind;
  readonly prompt: string;
  readonly priceUnits: bigint;
  readonly createdAt: number;
}

/** A quote's button works this long. */
export const quoteTtlMs = 3_600_000;

/** Callback data of a quote's button. */
export const buyPrefix = 'buy:';

export type Taken = { quote: MediaQuote } | { refused: 'unknown' | 'taken' | 'stale' };

export class MediaQuotes {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number,
  ) {}

  async create(input: Omit<MediaQuote, 'id' | 'createdAt'>): Promise<MediaQuote> {
    const quote: MediaQuote = { ...input, id: newId('bq', 8), createdAt: this.now() };
    await this.db('bot_quotes').insert({
      id: quote.id,
      telegram_id: quote.telegramId,
      chat_id: String(quote.chatId),
      kind: quote.kind,
      prompt: quote.prompt,
      price_units: unitsToSql(quote.priceUnits),
      created_at: quote.createdAt,
    });
    return quote;
  }

  /** The quote for this press by `telegramId`, taken so no other press gets it. */
  async take(id: string, telegramId: number): Promise<Taken> {
    const row = await this.db('bot_quotes').where({ id, telegram_id: String(telegramId) }).first();
    if (!row) return { refused: 'unknown' };
    if (row.taken_at !== null) return { refused: 'taken' };
    const now = this.now();
    if (Number(row.created_at) + quoteTtlMs < now) return { refused: 'stale' };
    const changed = await this.db('bot_quotes').where({ id }).whereNull('taken_at').update({ taken_at: now });
    if (changed !== 1) return { refused: 'taken' };
    return {
      quote: {
        id,
        telegramId: String(row.telegram_id),
        chatId: Number(row.chat_id),
        kind: row.kind as QuoteKind,
        prompt: String(row.prompt),
        priceUnits: unitsFromSql(row.price_units as string | number),
        createdAt: Number(row.created_at),
      },
    };
  }

  /** Removes quotes past any use (a day after their button stopped working). */
  async prune(): Promise<number> {
    return this.db('bot_quotes').where('created_at', '<', this.now() - quoteTtlMs - 86_400_000).delete();
  }
}
