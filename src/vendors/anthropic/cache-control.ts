// Prompt-cache breakpoints, placed by the gateway itself (DESIGN.md §5): on the last system
// block, on the last tool, and on the last block of the user message that precedes the final
// user turn — 3 of Anthropic's 4. Anthropic caches the prefix up to each breakpoint and, on a
// later request, finds an earlier cached prefix by looking back from a breakpoint; so the
// next turn of the same conversation (which marks the user message just after this one) reads
// what this request wrote. The final user turn is left unmarked: nothing would read it before
// the conversation moves on, and writing costs more than reading.
import type { AnthropicMessage, CacheControl, UserBlock } from './messages.js';

const ephemeral: CacheControl = { type: 'ephemeral' };

/** A copy of `blocks` whose last block carries a breakpoint. */
export function markLast<T extends object>(blocks: readonly T[]): (T | (T & { cache_control: CacheControl }))[] {
  if (blocks.length === 0) return [];
  return [...blocks.slice(0, -1), { ...blocks[blocks.length - 1], cache_control: ephemeral }];
}

/** A copy of `messages` with the conversation-prefix breakpoint (when there are two user turns). */
export function markConversationPrefix(messages: readonly AnthropicMessage[]): AnthropicMessage[] {
  const userPositions = messages.flatMap((message, position) => (message.role === 'user' ? [position] : []));
  if (userPositions.length < 2) return [...messages];
  const target = userPositions[userPositions.length - 2];
  return messages.map((message, position) =>
    position === target ? { role: 'user', content: markLast(message.content as readonly UserBlock[]) as UserBlock[] } : message,
  );
}
