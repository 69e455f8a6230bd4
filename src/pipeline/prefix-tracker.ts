// Prompt-cache accounting done by the gateway itself, for models whose upstream reports no
// cached tokens but does cache (capabilities.prompt_cache: true): every conversation prefix
// (system + tools + each message boundary before the last message) is remembered for 5
// minutes, sliding; a request whose prefix was seen gets that prefix's tokens as cached.
import { createHash } from 'node:crypto';
import type Keyv from 'keyv';
import type { ChatRequest } from '../model/chat.js';
import { countTextTokens } from '../model/token-estimate.js';

export const prefixTtlMs = 5 * 60_000;

export class PrefixTracker {
  /**
   * `guard` runs the store's work: over Redis it refuses at once while Redis is down and gives
   * up after cache.timeout (redis-connection.ts); in memory it just runs it.
   */
  constructor(
    private readonly store: Keyv<number>,
    private readonly guard: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
  ) {}

  /**
   * Cached tokens for this request's longest remembered prefix (0 if none); remembers its
   * prefixes. A store that fails or times out counts as a miss: the client is charged the
   * full input price, never more, and the request does not wait on the cache.
   */
  async cachedTokens(modelId: string, request: ChatRequest): Promise<number> {
    try {
      return await this.guard(() => this.lookUpAndRemember(modelId, request));
    } catch {
      return 0;
    }
  }

  private async lookUpAndRemember(modelId: string, request: ChatRequest): Promise<number> {
    const boundaries = prefixBoundaries(modelId, request);
    if (boundaries.length === 0) return 0;
    const seen = (await this.store.get(boundaries.map((b) => b.hash))) as (number | undefined)[];
    let cached = 0;
    for (let i = boundaries.length - 1; i >= 0; i--) {
      if (seen[i] !== undefined) {
        cached = boundaries[i]!.tokens;
        break;
      }
    }
    await Promise.all(boundaries.map((b) => this.store.set(b.hash, b.tokens, prefixTtlMs)));
    return cached;
  }
}

/** Cumulative hash and token count at each message boundary, excluding the last message. */
export function prefixBoundaries(modelId: string, request: ChatRequest): { hash: string; tokens: number }[] {
  const hash = createHash('sha256');
  let text = request.system.map((part) => part.text).join('\n') + JSON.stringify(request.tools);
  hash.update(modelId).update('\u0000').update(text);
  let tokens = countTextTokens(text);
  const boundaries: { hash: string; tokens: number }[] = [];
  for (const message of request.messages.slice(0, -1)) {
    text = JSON.stringify(message);
    hash.update('\u0000').update(text);
    tokens += countTextTokens(message.content.map((part) => ('text' in part ? part.text : JSON.stringify(part))).join(''));
    boundaries.push({ hash: hash.copy().digest('hex'), tokens });
  }
  return boundaries;
}
