// The ordering rules of StreamParts (src/model/chat.ts), checked on every parsed stream:
// `start` first and once; block indexes dense in start order; deltas only into an open block
// of their kind; every block that starts ends once (redacted reasoning is complete in its one
// part); only tool calls overlap other open blocks; citations point at a text block; the
// `finish` part comes last, once, after every usage part.
import type { StreamPart } from '../../src/model/chat.js';

type Kind = 'text' | 'reasoning' | 'tool';

const kindOf: Partial<Record<StreamPart['type'], Kind>> = {
  text_start: 'text',
  text_delta: 'text',
  text_end: 'text',
  reasoning_start: 'reasoning',
  reasoning_delta: 'reasoning',
  reasoning_signature: 'reasoning',
  reasoning_end: 'reasoning',
  tool_call_start: 'tool',
  tool_call_delta: 'tool',
  tool_call_end: 'tool',
};

export function streamViolations(parts: readonly StreamPart[]): string[] {
  const problems: string[] = [];
  const started = new Map<number, Kind | 'redacted'>();
  const open = new Map<number, Kind>();
  parts.forEach((part, position) => {
    const at = `part ${position} (${part.type})`;
    if (position === 0 && part.type !== 'start') problems.push(`${at}: the first part must be start`);
    if (position > 0 && part.type === 'start') problems.push(`${at}: a second start`);
    if (position < parts.length - 1 && part.type === 'finish') problems.push(`${at}: finish must be last`);
    if (part.type === 'text_start' || part.type === 'reasoning_start' || part.type === 'tool_call_start' || part.type === 'redacted_reasoning') {
      if (part.index !== started.size) problems.push(`${at}: index ${part.index}, expected ${started.size}`);
      const kind = part.type === 'redacted_reasoning' ? 'redacted' : kindOf[part.type]!;
      const overlapping = [...open.values()].some((other) => !(kind === 'tool' && other === 'tool'));
      if (overlapping) problems.push(`${at}: starts while a non-tool block is open or is not a tool call`);
      started.set(part.index, kind);
      if (kind !== 'redacted') open.set(part.index, kind);
      return;
    }
    if (part.type === 'citation') {
      if (started.get(part.index) !== 'text') problems.push(`${at}: cites block ${part.index}, not a text block`);
      return;
    }
    const kind = kindOf[part.type];
    if (kind === undefined || !('index' in part)) return;
    if (open.get(part.index) !== kind) problems.push(`${at}: block ${part.index} is not an open ${kind} block`);
    if (part.type.endsWith('_end')) open.delete(part.index);
  });
  if (open.size > 0) problems.push(`blocks never ended: ${[...open.keys()].join(', ')}`);
  const finishes = parts.filter((part) => part.type === 'finish').length;
  if (finishes !== 1) problems.push(`${finishes} finish parts, expected 1`);
  return problems;
}
