// A model's answer shown while it streams (docs/bot.md, "Chat"): a placeholder message is sent
// first, then edited as text arrives — at most once per bot.edit_interval per chat (Telegram
// limits edits), never with unchanged text. Past 4000 characters the answer continues in a new
// message (split on a paragraph, line, sentence or word, deliver.ts). Reasoning is folded: while
// it streams the message says only that the model is reasoning; the final message carries its
// end (at most 1500 characters, the first part of the answer leaving room for it) in an
// expandable blockquote.
import type { Api } from 'grammy';
import { isNotModified, isUserGone, splitText } from './deliver.js';
import { type BotTexts, escapeHtml } from './texts.js';

/** Characters of answer per message: below Telegram's 4096, leaving room for the price line and markup. */
const partLimit = 4000;
/** Reasoning shown folded in the final message at most. */
const maxReasoningShown = 1500;

export class StreamedReply {
  private readonly messageIds: number[];
  private readonly sent: string[] = [];
  private answer = '';
  private reasoning = '';
  private timer: NodeJS.Timeout | undefined;
  private lastFlushAt = 0;
  private flushing: Promise<void> = Promise.resolve();
  /** The user blocked the bot: nothing more is delivered. */
  gone = false;
  /** The last edit or send failed for another reason (the final flush tries again). */
  private failure: unknown;

  constructor(
    private readonly api: Api,
    private readonly chatId: number,
    placeholderId: number,
    private readonly t: BotTexts,
    private readonly intervalMs: number,
    /** Called once when the user turns out to have blocked the bot (the caller stops the upstream). */
    private readonly onGone: () => void,
  ) {
    this.messageIds = [placeholderId];
    this.sent = [t.thinking];
  }

  /** More text arrived: an edit is scheduled within the interval. */
  update(answerDelta: string, reasoningDelta: string): void {
    this.answer += answerDelta;
    this.reasoning += reasoningDelta;
    if (this.timer !== undefined || this.gone) return;
    const delay = Math.max(0, this.lastFlushAt + this.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flushing.then(() => this.flush(this.render(undefined, false)));
    }, delay);
  }

  get text(): string {
    return this.answer;
  }

  /** The final state: the whole answer (reasoning folded), `footer` under it. True when it reached the user; false when it could not be delivered. */
  async finish(footer: string | undefined): Promise<boolean> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    if (this.gone) return false;
    this.failure = undefined;
    await this.flush(this.render(footer, true));
    return !this.gone && this.failure === undefined;
  }

  /** Replaces everything shown with one message (a refusal, a failure). */
  async replace(text: string): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    if (this.gone) return;
    await this.flush([escapeHtml(text)]);
  }

  private render(footer: string | undefined, final: boolean): string[] {
    if (this.answer.trim() === '') {
      if (!final) return [this.reasoning === '' ? this.t.thinking : `<i>💭 ${escapeHtml(this.t.reasoningFolded)}…</i>`];
      return [footer === undefined ? this.t.thinking : footer];
    }
    const reasoning = this.reasoning.trim();
    // The first part leaves room for the folded reasoning (kept the same while streaming, so the parts do not shift at the end).
    const reserved = reasoning === '' ? 0 : Math.min(maxReasoningShown, reasoning.length) + 40;
    const parts = splitText(this.answer, partLimit, partLimit - reserved).map(escapeHtml);
    if (reasoning !== '') {
      const room = Math.min(maxReasoningShown, messageRoom(parts[0]!));
      const shown = reasoning.length <= room ? reasoning : `…${reasoning.slice(reasoning.length - room + 1)}`;
      parts[0] = final && room > 40 ? `<blockquote expandable>💭 ${escapeHtml(shown)}</blockquote>\n${parts[0]}` : `<i>💭 ${escapeHtml(this.t.reasoningFolded)}</i>\n${parts[0]}`;
    }
    if (footer !== undefined) parts[parts.length - 1] += `\n\n${footer}`;
    return parts;
  }

  private async flush(parts: readonly string[]): Promise<void> {
    this.lastFlushAt = Date.now();
    for (let index = 0; index < parts.length && !this.gone; index++) {
      const html = parts[index]!;
      if (this.sent[index] === html) continue;
      try {
        if (index < this.messageIds.length) {
          await this.api.editMessageText(this.chatId, this.messageIds[index]!, html, { parse_mode: 'HTML' }).catch((error: unknown) => {
            if (!isNotModified(error)) throw error;
          });
        } else {
          const message = await this.api.sendMessage(this.chatId, html, { parse_mode: 'HTML' });
          this.messageIds.push(message.message_id);
        }
        this.sent[index] = html;
      } catch (error) {
        if (isUserGone(error)) {
          this.gone = true;
          this.onGone();
          return;
        }
        this.failure = error;
        return;
      }
    }
  }
}

/** The visible characters left in a message beside `html` (its entities count as their text). */
function messageRoom(html: string): number {
  const visible = html.replace(/<[^>]+>/g, '').replace(/&(amp|lt|gt);/g, '_').length;
  return 4096 - visible - 100;
}
