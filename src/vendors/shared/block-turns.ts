// What the block-structured wires (Anthropic Messages, Bedrock Converse) share on both sides of
// a chat: requests alternate user and assistant turns of content blocks, with a turn's tool
// results before its other blocks; streams open and stop numbered blocks and end with a stop
// reason.
import type { ChatMessage, FinishReason, StreamPart } from '../../model/chat.js';

type UserContent = Extract<ChatMessage, { role: 'user' }>['content'];
type AssistantContent = Extract<ChatMessage, { role: 'assistant' }>['content'];

/**
 * The conversation as alternating turns: consecutive messages of one role merged into one turn
 * (the wires refuse two user turns in a row), empty ones dropped, and in each user turn the tool
 * results first (both wires require them to lead the turn that answers the calls).
 */
export function alternatingTurns<UserBlock, AssistantBlock>(
  messages: readonly ChatMessage[],
  blocks: { user(content: UserContent): UserBlock[]; assistant(content: AssistantContent): AssistantBlock[]; isToolResult(block: UserBlock): boolean },
): ({ role: 'user'; content: UserBlock[] } | { role: 'assistant'; content: AssistantBlock[] })[] {
  const merged: { role: 'user' | 'assistant'; content: (UserBlock | AssistantBlock)[] }[] = [];
  for (const message of messages) {
    const content = message.role === 'user' ? blocks.user(message.content) : blocks.assistant(message.content);
    if (content.length === 0) continue;
    const last = merged.at(-1);
    if (last?.role === message.role) last.content.push(...content);
    else merged.push({ role: message.role, content: [...content] });
  }
  return merged.map((turn) => {
    if (turn.role === 'assistant') return { role: 'assistant', content: turn.content as AssistantBlock[] };
    const content = turn.content as UserBlock[];
    return { role: 'user', content: [...content.filter(blocks.isToolResult), ...content.filter((block) => !blocks.isToolResult(block))] };
  });
}

export type StreamBlockKind = 'text' | 'reasoning' | 'redacted' | 'tool';

/** The part that ends a stream block (a redacted reasoning block has none: it had no start either). */
export function blockEnd(kind: StreamBlockKind, index: number): StreamPart[] {
  switch (kind) {
    case 'text':
      return [{ type: 'text_end', index }];
    case 'reasoning':
      return [{ type: 'reasoning_end', index }];
    case 'tool':
      return [{ type: 'tool_call_end', index }];
    case 'redacted':
      return [];
  }
}

/**
 * The stream's finish. Structured output goes upstream as a forced tool; an answer that called
 * only that tool finished as the client asked (`stop`), not as a tool call. The raw stop reason
 * travels next to the mapped one.
 */
export function streamFinish(raw: string | null, finishReasonOf: (raw: string | null) => FinishReason, answeredByOutputTool: boolean, stopSequence: string | null): StreamPart {
  return {
    type: 'finish',
    finishReason: answeredByOutputTool ? 'stop' : finishReasonOf(raw),
    rawFinishReason: raw,
    ...(stopSequence !== null ? { stopSequence } : {}),
  };
}
