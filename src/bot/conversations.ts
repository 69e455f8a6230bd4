// A chat's conversation (bot_conversations): the recent turns sent with each new message, so the
// model answers in context. Bounded by bot.conversation: at most max_turns exchanges (a user
// message and its answer), and the oldest dropped while the kept text is over max_tokens
// (estimated at 4 characters a token: the bound keeps the request small; it is no price, which
// is the upstream's count). /new empties it.
import type { Knex } from 'knex';

export interface Turn {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

/** The turns kept after adding some: the last maxTurns exchanges, then the oldest dropped until under maxTokens (the newest turn is always kept). */
export function boundTurns(turns: readonly Turn[], limits: { maxTurns: number; maxTokens: number }): Turn[] {
  let kept = turns.slice(-limits.maxTurns * 2);
  // A conversation starts with the user's message.
  while (kept.length > 0 && kept[0]!.role !== 'user') kept = kept.slice(1);
  let tokens = kept.reduce((sum, turn) => sum + estimateTokens(turn.content), 0);
  while (kept.length > 1 && tokens > limits.maxTokens) {
    tokens -= estimateTokens(kept[0]!.content);
    kept = kept.slice(1);
    while (kept.length > 1 && kept[0]!.role !== 'user') {
      tokens -= estimateTokens(kept[0]!.content);
      kept = kept.slice(1);
    }
  }
  return kept;
}

export class Conversations {
  constructor(
    private readonly db: Knex,
    private readonly limits: { maxTurns: number; maxTokens: number },
    private readonly now: () => number,
  ) {}

  async turns(chatId: number): Promise<Turn[]> {
    const row: { turns: string } | undefined = await this.db('bot_conversations').where({ chat_id: String(chatId) }).first('turns');
    return row ? (JSON.parse(row.turns) as Turn[]) : [];
  }

  /** The turns to send with a new user message: the kept ones and it, bounded. */
  withMessage(turns: readonly Turn[], text: string): Turn[] {
    return boundTurns([...turns, { role: 'user', content: text }], this.limits);
  }

  async save(chatId: number, turns: readonly Turn[]): Promise<void> {
    const bounded = boundTurns(turns, this.limits);
    await this.db('bot_conversations').insert({ chat_id: String(chatId), turns: JSON.stringify(bounded), updated_at: this.now() }).onConflict('chat_id').merge(['turns', 'updated_at']);
  }

  async clear(chatId: number): Promise<void> {
    await this.db('bot_conversations').where({ chat_id: String(chatId) }).delete();
  }
}
