// Bedrock prompt caching as the simulator plays it: each cachePoint ends a prefix (tools,
// system, messages in that order); the longest prefix already cached is read, the rest up to
// the last cache point is written (the same rule as the Anthropic wire, in its own namespace).
import { PrefixHasher, stableJson, type PrefixCache } from '../../prefix-cache.js';
import type { ParsedConverseRequest } from './converse-request.js';

export interface CacheUsage {
  readonly read: number;
  readonly write: number;
}

export function converseCacheUsage(cache: PrefixCache, parsed: ParsedConverseRequest): CacheUsage {
  const hasher = new PrefixHasher('bedrock-converse', parsed.model);
  const marks: { key: string; tokens: number }[] = [];
  let tokens = 0;
  for (const segment of parsed.segments) {
    hasher.update(stableJson(segment.value));
    tokens += segment.tokens;
    if (segment.breakpoint) marks.push({ key: hasher.key(), tokens });
  }
  if (marks.length === 0) return { read: 0, write: 0 };
  let read = 0;
  for (const mark of marks) {
    if (cache.lookup(mark.key) > 0) read = Math.max(read, mark.tokens);
    else cache.store(mark.key, mark.tokens);
  }
  return { read, write: Math.max(0, marks.at(-1)!.tokens - read) };
}
