// The JSON the cabinet API answers with, as types only: no import but other types, nothing of
// Node or the DOM, so both builds read this one file — the server (tsconfig.json) builds its
// answers with these declarations and the web app (web/tsconfig.json) reads them with the same
// ones, and a field renamed or retyped on one side fails the other's typecheck. The app imports
// it with `import type`, which esbuild erases: nothing of the server enters the bundle.
import type { HistoryItem } from '../billing/history-item.js';

/** GET /cabinet/api/overview (src/cabinet-api/overview.ts). */
export interface Overview {
  balance_rub: string;
  held_rub: string;
  available_rub: string;
  spend: { today_rub: string; days_7_rub: string; days_30_rub: string };
  by_model: { model: string | null; rub: string; requests: number }[];
  by_day: { day: string; rub: string }[];
  /** The period by_model and by_day cover: [since, until) as ISO 8601 UTC. */
  since: string;
  until: string;
}

/** GET /cabinet/api/history (src/cabinet-api/history.ts): the /v1/history item with the key that caused it. */
export interface CabinetHistoryItem extends HistoryItem {
  readonly key_id: string | null;
  readonly key_name: string | null;
  /** Which door the charge came through (its key's purpose): the API, the web cabinet or the Telegram bot; null for a row without a key (credits). */
  readonly source: 'api' | 'cabinet' | 'bot' | null;
}

export interface CabinetHistoryPage {
  object: 'list';
  data: CabinetHistoryItem[];
  has_more: boolean;
  next_cursor: string | null;
}

/** GET /cabinet/api/referral (src/http/routes/cabinet-referral.ts; docs/payments.md, "Referrals"). */
export interface ReferralAnswer {
  /** Whether `referral` is configured: without it, code, link, percent and months are null. */
  enabled: boolean;
  /** The account's referral code (made on the first read). */
  code: string | null;
  /** `<public_url>/cabinet/signup?ref=<code>`. */
  link: string | null;
  /** The referrer's share of each paid top-up, as configured: "10", "2.5". */
  percent: string | null;
  /** For how many months after its sign-up a referred account's top-ups earn. */
  months: number | null;
  /** Accounts that signed up through this account's link. */
  referred_accounts: number;
  /** The sum of the account's `referral` ledger rows (reversals after refunds subtracted). */
  income_rub: string;
}

/** GET and PUT /cabinet/api/low-balance (src/http/routes/cabinet-low-balance.ts; docs/payments.md, "Low balance"). */
export interface LowBalanceAnswer {
  /** The account's own threshold; null: the default applies. "0.0000" turns the notices off. */
  threshold_rub: string | null;
  /** low_balance.default_threshold_rub of the config; null when there is none. */
  default_threshold_rub: string | null;
  /** Where a signed `account.low_balance` webhook also goes; null: email only. */
  webhook_url: string | null;
}

/** GET and DELETE /cabinet/api/telegram (src/http/routes/cabinet-telegram.ts; docs/cabinet.md, "Telegram bot"). */
export interface TelegramLinkAnswer {
  /** Whether the gateway has a Telegram bot (the `bot` section). */
  available: boolean;
  /** The bot's username without @; null without a bot. */
  bot_username: string | null;
  /** Whether this user's Telegram is linked (by the bot's link, or by logging in with Telegram). */
  linked: boolean;
  telegram_id: string | null;
}

/** POST /cabinet/api/telegram/link: the one-time deep link that connects the Telegram user who follows it. */
export interface TelegramLinkCreated {
  /** https://t.me/<bot>?start=<token>, usable once until expires_at. */
  link: string;
  expires_at: string;
}
