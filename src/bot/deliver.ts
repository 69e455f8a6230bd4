// Getting text to a Telegram chat within the Bot API's limits (docs/bot.md, "Robustness"):
// - a 429 is retried after its parameters.retry_after, by an API transformer that every call of
//   the bot goes through (three tries more at most; the wait is injectable for tests);
// - a message is at most 4096 characters (after entities are parsed): longer text is split at
//   the last paragraph break, else line break, else sentence end, else space before the limit;
// - a user who blocked the bot (403) is no failure: the caller stops delivering to them.
import type { Transformer } from 'grammy';
import { GrammyError } from 'grammy';

/** Telegram's limit on a message's text, in characters (UTF-16 code units, as Telegram counts). */
export const messageLimit = 4096;

/** Retries of one call refused with 429 before its refusal is returned. */
const maxRetries = 3;

/** A wait of `ms` (tests pass one that records and returns at once). */
export type Wait = (ms: number) => Promise<void>;

export const realWait: Wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The transformer that waits out a 429's retry_after and calls again. */
export function retryAfterTransformer(wait: Wait = realWait): Transformer {
  return async (prev, method, payload, signal) => {
    for (let attempt = 0; ; attempt++) {
      const result = await prev(method, payload, signal);
      if (result.ok || result.error_code !== 429 || attempt >= maxRetries) return result;
      const seconds = result.parameters?.retry_after ?? 1;
      await wait(Math.max(0, seconds) * 1000);
    }
  };
}

/** Whether a failed call means this user will not receive anything: they blocked the bot, or their account is gone. */
export function isUserGone(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 403;
}

/** Whether an edit was refused only because the text did not change (harmless). */
export function isNotModified(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /message is not modified/i.test(error.description);
}

/**
 * `text` in parts of at most `limit` characters (the first at most `firstLimit`: room for what precedes it), each cut at the best boundary in its last
 * third (paragraph, line, sentence, word), else hard at the limit.
 */
export function splitText(text: string, limit = messageLimit, firstLimit = limit): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > (parts.length === 0 ? firstLimit : limit)) {
    const max = parts.length === 0 ? firstLimit : limit;
    const window = rest.slice(0, max);
    const floor = Math.floor(max / 3);
    let cut = -1;
    for (const boundary of [/\n\n(?![\s\S]*\n\n)/, /\n(?![\s\S]*\n)/, /[.!?…](\s)(?![\s\S]*[.!?…]\s)/, /\s(?![\s\S]*\s)/]) {
      const found = boundary.exec(window);
      if (found && found.index >= floor) {
        cut = found.index + found[0].length;
        break;
      }
    }
    if (cut <= 0) cut = max;
    // A cut inside a surrogate pair would leave half a character on each side.
    if (/[\uD800-\uDBFF]/.test(rest[cut - 1] ?? '')) cut -= 1;
    parts.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).replace(/^\s+/, '');
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}
