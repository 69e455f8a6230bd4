// Telegram login (cabinet.telegram_login, docs/cabinet.md "Telegram"): the data Telegram's
// login (the Login Widget, or its redirect flavour oauth.telegram.org/auth) hands the browser,
// signed by Telegram with the bot's token. The signature is the security boundary: the
// data-check-string (every received field but `hash`, sorted by name, as `name=value` joined by
// newlines) must carry HMAC-SHA256 with key SHA256(bot token) equal to `hash`
// (https://core.telegram.org/widgets/login#checking-authorization). Signed data older than
// max_age is refused (it may have been copied from a log or a browser history), and so is data
// dated in the future beyond a minute of clock difference.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** What the gateway itself adds to Telegram's data in the callback's query: never part of the signed data. */
export const gatewayFields = ['invite', 'ref'] as const;

/** How far in the future auth_date may be: the two clocks may differ a little. */
export const telegramClockSkewMs = 60_000;

export interface TelegramUser {
  readonly id: string;
  readonly firstName: string | null;
  readonly lastName: string | null;
  readonly username: string | null;
  readonly authDate: number;
}

export class TelegramLoginError extends Error {
  constructor(
    readonly reason: 'telegram_invalid' | 'telegram_stale',
    message: string,
  ) {
    super(message);
    this.name = 'TelegramLoginError';
  }
}

/** The data-check-string of the received fields (all but `hash`, sorted by name). */
export function dataCheckString(data: Readonly<Record<string, string>>): string {
  return Object.keys(data)
    .filter((name) => name !== 'hash')
    .sort()
    .map((name) => `${name}=${data[name]}`)
    .join('\n');
}

/** The `hash` Telegram would give `data` for this bot (tests sign with it too). */
export function telegramHash(data: Readonly<Record<string, string>>, botToken: string): string {
  const key = createHash('sha256').update(botToken).digest();
  return createHmac('sha256', key).update(dataCheckString(data)).digest('hex');
}

/** Checks the signed data at `now` (ms); the user it names, or TelegramLoginError. */
export function verifyTelegramLogin(received: Readonly<Record<string, string>>, options: { botToken: string; maxAgeMs: number; now: number }): TelegramUser {
  // Every field Telegram sent is signed (fields it adds later too), so all but ours are checked.
  const data: Record<string, string> = {};
  for (const [field, value] of Object.entries(received)) if (!(gatewayFields as readonly string[]).includes(field)) data[field] = value;
  const hash = data.hash;
  if (!hash || !/^[0-9a-f]{64}$/.test(hash) || !data.id || !/^\d{1,20}$/.test(data.id) || !data.auth_date || !/^\d{1,12}$/.test(data.auth_date)) {
    throw new TelegramLoginError('telegram_invalid', 'the Telegram login data is incomplete');
  }
  const expected = Buffer.from(telegramHash(data, options.botToken), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(hash, 'hex'))) throw new TelegramLoginError('telegram_invalid', 'the Telegram login data is not signed with this bot\'s token');
  const authDate = Number(data.auth_date) * 1000;
  if (options.now - authDate > options.maxAgeMs) throw new TelegramLoginError('telegram_stale', `the Telegram login is older than cabinet.telegram_login.max_age (signed at ${new Date(authDate).toISOString()})`);
  if (authDate - options.now > telegramClockSkewMs) throw new TelegramLoginError('telegram_stale', `the Telegram login is dated in the future (${new Date(authDate).toISOString()})`);
  return { id: data.id, firstName: data.first_name ?? null, lastName: data.last_name ?? null, username: data.username ?? null, authDate };
}

/** The bot's id (the part of its token before the colon): what oauth.telegram.org/auth takes as bot_id. Public, unlike the token. */
export function telegramBotId(botToken: string): string {
  return botToken.split(':')[0] ?? '';
}
