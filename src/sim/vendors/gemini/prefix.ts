// Gemini's implicit context caching, as the simulator's OpenAI endpoint does it: the head
// (tools and system instruction) and every content but the last form the prefix; the longest
// prefix seen before (at a content boundary, at least 64 tokens) is reported as
// cachedContentTokenCount, and this request's whole prefix is remembered for the next one.
import { minimumCachedPrefixTokens } from '../../openai-request.js';
import { PrefixHasher, type PrefixCache } from '../../prefix-cache.js';
import type { ParsedGeminiRequest } from './request.js';

export function cachedContentTokens(cache: PrefixCache, parsed: ParsedGeminiRequest): number {
  const boundaries = parsed.contents.length - 1;
  let total = parsed.headTokens;
  for (let index = 0; index < boundaries; index++) total += parsed.contentTokens[index]!;
  if (total < minimumCachedPrefixTokens) return 0;
  const hasher = new PrefixHasher('gemini', parsed.model).update(parsed.headJson);
  let tokens = parsed.headTokens;
  let cached = 0;
  let lastKey: string | undefined;
  if (tokens >= minimumCachedPrefixTokens) {
    lastKey = hasher.key();
    cached = cache.lookup(lastKey);
  }
  for (let index = 0; index < boundaries; index++) {
    hasher.update(JSON.stringify(parsed.contents[index]));
    tokens += parsed.contentTokens[index]!;
    if (tokens < minimumCachedPrefixTokens) continue;
    lastKey = hasher.key();
    const hit = cache.lookup(lastKey);
    if (hit > 0) cached = hit;
  }
  if (lastKey !== undefined) cache.store(lastKey, total);
  return cached;
}
