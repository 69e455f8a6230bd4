// Folds a stream of parts into a whole ChatResult (for non-streaming clients, and for the
// meter: what was produced so far when a stream is cut). Pure; imports only the model.
import { emptyUsage, type ChatResult, type Citation, type FinishReason, type StreamPart, type Usage } from './chat.js';

type Block =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string; signature?: string }
  | { kind: 'redacted_reasoning'; data: string }
  | { kind: 'tool_call'; id: string; name: string; arguments: string };

export class ResultAccumulator {
  id = '';
  model = '';
  private readonly blocks = new Map<number, Block>();
  private readonly citations: (Citation & { contentIndex: number })[] = [];
  usage: Usage | undefined;
  finishReason: FinishReason | undefined;
  rawFinishReason: string | null = null;
  stopSequence: string | null = null;

  push(part: StreamPart): void {
    switch (part.type) {
      case 'start':
        this.id = part.id;
        this.model = part.model;
        break;
      case 'text_start':
        this.blocks.set(part.index, { kind: 'text', text: '' });
        break;
      case 'text_delta':
        this.block(part.index, 'text').text += part.text;
        break;
      case 'citation':
        this.citations.push({ ...part.citation, contentIndex: part.index });
        break;
      case 'reasoning_start':
        this.blocks.set(part.index, { kind: 'reasoning', text: '' });
        break;
      case 'reasoning_delta':
        this.block(part.index, 'reasoning').text += part.text;
        break;
      case 'reasoning_signature':
        this.block(part.index, 'reasoning').signature = part.signature;
        break;
      case 'redacted_reasoning':
        this.blocks.set(part.index, { kind: 'redacted_reasoning', data: part.data });
        break;
      case 'tool_call_start':
        this.blocks.set(part.index, { kind: 'tool_call', id: part.id, name: part.name, arguments: '' });
        break;
      case 'tool_call_delta':
        this.block(part.index, 'tool_call').arguments += part.argumentsDelta;
        break;
      case 'usage':
        this.usage = part.usage; // the last report wins, never a sum
        break;
      case 'finish':
        this.finishReason = part.finishReason;
        this.rawFinishReason = part.rawFinishReason;
        this.stopSequence = part.stopSequence ?? null;
        break;
      default:
        break;
    }
  }

  private block<K extends Block['kind']>(index: number, kind: K): Extract<Block, { kind: K }> {
    const block = this.blocks.get(index);
    if (!block || block.kind !== kind) throw new Error(`stream part for ${kind} block ${index} arrived before its start`);
    return block as Extract<Block, { kind: K }>;
  }

  /** All text and reasoning produced so far (for counting tokens when usage is missing). */
  producedText(): string {
    let text = '';
    for (const block of this.blocks.values()) {
      if (block.kind === 'text' || block.kind === 'reasoning') text += block.text;
      else if (block.kind === 'tool_call') text += block.name + block.arguments;
    }
    return text;
  }

  /** The reasoning text produced so far (to count reasoning tokens an upstream does not report). */
  reasoningText(): string {
    let text = '';
    for (const block of this.blocks.values()) if (block.kind === 'reasoning') text += block.text;
    return text;
  }

  result(options: { created: number; usage?: Usage; usageEstimated?: boolean }): ChatResult {
    const ordered = [...this.blocks.entries()].sort(([a], [b]) => a - b);
    const positions = new Map(ordered.map(([index], position) => [index, position]));
    return {
      id: this.id,
      model: this.model,
      content: ordered.map(([, block]) => {
        switch (block.kind) {
          case 'text':
            return { type: 'text', text: block.text } as const;
          case 'reasoning':
            return { type: 'reasoning', text: block.text, ...(block.signature ? { signature: block.signature } : {}) } as const;
          case 'redacted_reasoning':
            return { type: 'redacted_reasoning', data: block.data } as const;
          case 'tool_call':
            return { type: 'tool_call', id: block.id, name: block.name, arguments: block.arguments } as const;
        }
      }),
      citations: this.citations.map((c) => ({ ...c, contentIndex: positions.get(c.contentIndex) ?? c.contentIndex })),
      finishReason: this.finishReason ?? 'stop',
      rawFinishReason: this.rawFinishReason,
      stopSequence: this.stopSequence,
      usage: options.usage ?? this.usage ?? emptyUsage,
      usageEstimated: options.usageEstimated ?? false,
      created: options.created,
    };
  }
}
