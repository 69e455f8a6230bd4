// What the bot keeps per Telegram user (bot_users): their language (from Telegram's
// language_code until they switch it), the text model they chose (bot.default_model until
// then), whether answers show their price (bot.show_price until switched), whether replies are
// also spoken (the voice feature reads it), and since when they have blocked the bot (a
// delivery refused with 403 "blocked by the user" sets it; their next message clears it).
import type { Knex } from 'knex';
import { type BotLanguage, languageOf } from './texts.js';

export interface BotUserSettings {
  readonly telegramId: string;
  readonly language: BotLanguage;
  /** The chosen text model; undefined: bot.default_model. */
  readonly model: string | undefined;
  /** undefined: bot.show_price. */
  readonly showPrice: boolean | undefined;
  readonly spokenReplies: boolean;
  readonly blockedAt: number | undefined;
}

interface Row {
  telegram_id: string;
  language: string | null;
  model: string | null;
  show_price: boolean | number | null;
  spoken_replies: boolean | number;
  blocked_at: number | string | null;
}

export type SettingsChange = Partial<{ language: BotLanguage; model: string; showPrice: boolean; spokenReplies: boolean; blockedAt: number | null }>;

export class BotUsers {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number,
  ) {}

  /** The user's settings; a user never seen has Telegram's language and the defaults. */
  async get(telegramId: number, languageCode: string | undefined): Promise<BotUserSettings> {
    const row: Row | undefined = await this.db('bot_users').where({ telegram_id: String(telegramId) }).first();
    return {
      telegramId: String(telegramId),
      language: row?.language === 'ru' || row?.language === 'en' ? row.language : languageOf(languageCode),
      model: row?.model ?? undefined,
      showPrice: row?.show_price === null || row?.show_price === undefined ? undefined : Boolean(row.show_price),
      spokenReplies: Boolean(row?.spoken_replies ?? false),
      blockedAt: row?.blocked_at === null || row?.blocked_at === undefined ? undefined : Number(row.blocked_at),
    };
  }

  async change(telegramId: number | string, change: SettingsChange): Promise<void> {
    const columns: Record<string, unknown> = { updated_at: this.now() };
    if (change.language !== undefined) columns.language = change.language;
    if (change.model !== undefined) columns.model = change.model;
    if (change.showPrice !== undefined) columns.show_price = change.showPrice;
    if (change.spokenReplies !== undefined) columns.spoken_replies = change.spokenReplies;
    if (change.blockedAt !== undefined) columns.blocked_at = change.blockedAt;
    await this.db('bot_users')
      .insert({ telegram_id: String(telegramId), spoken_replies: false, ...columns })
      .onConflict('telegram_id')
      .merge(Object.keys(columns));
  }
}
