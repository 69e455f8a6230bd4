// Anthropic's explicit prompt cache: only prefixes that end at a `cache_control` breakpoint
// (on a tool, a system block or a message block) are written and read, 5 minutes sliding.
import type { ParsedMessagesRequest } from './anthropic-request.js';
import { PrefixHasher, stableJson, type PrefixCache } from './prefix-cache.js';

export interface CacheUsage {
  readonly read: number;
  readonly creation: number;
}

/**
 * Anthropic's prompt cache: each breakpoint names the prefix up to and including its block.
 * The longest prefix already cached is read; the rest up to the last breakpoint is written.
 */
export function cacheUsage(cache: PrefixCache, parsed: ParsedMessagesRequest): CacheUsage {
  if (parsed.breakpoints === 0) return { read: 0, creation: 0 };
  const hasher = new PrefixHasher('anthropic-messages', parsed.model);
  const marks: { key: string; tokens: number }[] = [];
  let tokens = 0;
  for (const segment of parsed.segments) {
    hasher.update(stableJson(segment.value));
    tokens += segment.tokens;
    if (segment.breakpoint) marks.push({ key: hasher.key(), tokens });
  }
  let read = 0;
  for (const mark of marks) {
    // A hit refreshes the entry; a miss writes it (each breakpoint is a cache entry of its own).
    if (cache.lookup(mark.key) > 0) read = Math.max(read, mark.tokens);
    else cache.store(mark.key, mark.tokens);
  }
  const last = marks[marks.length - 1]!;
  return { read, creation: Math.max(0, last.tokens - read) };
}
