// Bedrock ConverseStream events (the `:event-type` of each event-stream message, its JSON
// payload) → StreamParts:
//   messageStart       → start
//   contentBlockStart  → tool_call_start (only tool use announces itself; text and reasoning
//                        blocks open with their first delta)
//   contentBlockDelta  → text_delta | reasoning_delta | reasoning_signature | redacted_reasoning
//                        | tool_call_delta (each opening its block when it is the first)
//   contentBlockStop   → text_end | reasoning_end | tool_call_end
//   messageStop        → stopReason remembered (and Claude's stop_sequence, when asked for)
//   metadata           → usage, then finish (it comes after messageStop and carries the usage)
// In-stream exceptions never reach here: the framing turns them into UpstreamErrors
// (shared/aws-event-stream.ts). Block indexes are renumbered densely, as the other parsers do.
import type { FinishReason, StreamPart, Usage } from '../../model/chat.js';
import type { SseEvent, UpstreamStreamParser } from '../types.js';
import { blockEnd, type StreamBlockKind, streamFinish } from '../shared/block-turns.js';
import { countOf, isObject, objectOf, parseEventJson, stringOf, type JsonObject } from '../shared/json.js';
import { truncatedStreamError } from '../shared/upstream-errors.js';

type BlockKind = StreamBlockKind;

export class ConverseStreamParser implements UpstreamStreamParser {
  private sawEvent = false;
  private started = false;
  private nextIndex = 0;
  /** Our block (kind, index) by the upstream's contentBlockIndex, while open. */
  private readonly blocks = new Map<number, { readonly kind: BlockKind; readonly index: number }>();
  /** undefined until messageStop. */
  private stopReason: string | undefined;
  private stopSequence: string | null = null;
  private finished = false;
  private calledClientTool = false;

  /** `outputToolName`: the forced output tool of a structured-output request, read as text. */
  constructor(
    private readonly model: string,
    private readonly outputToolName?: string,
  ) {}

  push(event: SseEvent): StreamPart[] {
    if (this.finished || event.data.trim() === '') return [];
    const data = parseEventJson(event.data);
    if (!isObject(data)) return [];
    this.sawEvent = true;
    const parts: StreamPart[] = this.started || event.event === 'metadata' ? [] : this.start();
    switch (event.event) {
      case 'messageStart':
        return parts;
      case 'contentBlockStart':
        return parts.concat(this.blockStart(data));
      case 'contentBlockDelta':
        return parts.concat(this.blockDelta(data));
      case 'contentBlockStop':
        return parts.concat(this.blockStop(data));
      case 'messageStop':
        this.stopReason = stringOf(data.stopReason) ?? 'end_turn';
        this.stopSequence = stringOf(objectOf(data.additionalModelResponseFields)?.stop_sequence) ?? null;
        return parts.concat(this.closeBlocks());
      case 'metadata': {
        const usage = objectOf(data.usage);
        const usageParts: StreamPart[] = usage ? [{ type: 'usage', usage: usageOf(usage) }] : [];
        return this.stopReason === undefined ? usageParts : [...usageParts, ...this.finish()];
      }
      default:
        return parts; // events this adapter does not know
    }
  }

  /** The body ended: whole once messageStop came (metadata may be missing: usage is then estimated); cut before it. */
  end(): StreamPart[] {
    if (this.finished) return [];
    if (this.stopReason === undefined) throw truncatedStreamError(this.sawEvent);
    return this.finish();
  }

  private start(): StreamPart[] {
    this.started = true;
    // Converse streams carry no message id; the dialect makes the client's.
    return [{ type: 'start', id: '', model: this.model }];
  }

  private open(upstreamIndex: number, kind: BlockKind): number {
    const index = this.nextIndex++;
    this.blocks.set(upstreamIndex, { kind, index });
    return index;
  }

  private blockStart(data: JsonObject): StreamPart[] {
    const toolUse = objectOf(objectOf(data.start)?.toolUse);
    const upstreamIndex = countOf(data.contentBlockIndex);
    if (!toolUse || this.blocks.has(upstreamIndex)) return [];
    const name = stringOf(toolUse.name) ?? '';
    if (this.outputToolName !== undefined && name === this.outputToolName) return [{ type: 'text_start', index: this.open(upstreamIndex, 'text') }];
    this.calledClientTool = true;
    return [{ type: 'tool_call_start', index: this.open(upstreamIndex, 'tool'), id: stringOf(toolUse.toolUseId) ?? '', name }];
  }

  private blockDelta(data: JsonObject): StreamPart[] {
    const delta = objectOf(data.delta);
    if (!delta) return [];
    const upstreamIndex = countOf(data.contentBlockIndex);
    const block = this.blocks.get(upstreamIndex);
    const text = stringOf(delta.text);
    if (text !== undefined) {
      if (block) return text && block.kind === 'text' ? [{ type: 'text_delta', index: block.index, text }] : [];
      const index = this.open(upstreamIndex, 'text');
      return text ? [{ type: 'text_start', index }, { type: 'text_delta', index, text }] : [{ type: 'text_start', index }];
    }
    const toolUse = objectOf(delta.toolUse);
    if (toolUse) {
      const fragment = stringOf(toolUse.input);
      if (!block || !fragment) return [];
      return block.kind === 'text' ? [{ type: 'text_delta', index: block.index, text: fragment }] : [{ type: 'tool_call_delta', index: block.index, argumentsDelta: fragment }];
    }
    const reasoning = objectOf(delta.reasoningContent);
    return reasoning ? this.reasoningDelta(upstreamIndex, block, reasoning) : [];
  }

  private reasoningDelta(upstreamIndex: number, block: { kind: BlockKind; index: number } | undefined, reasoning: JsonObject): StreamPart[] {
    const redacted = stringOf(reasoning.redactedContent);
    if (redacted !== undefined) {
      // Complete in one delta; its contentBlockStop adds nothing.
      return block ? [] : [{ type: 'redacted_reasoning', index: this.open(upstreamIndex, 'redacted'), data: redacted }];
    }
    const parts: StreamPart[] = [];
    let index = block?.index;
    if (index === undefined) {
      index = this.open(upstreamIndex, 'reasoning');
      parts.push({ type: 'reasoning_start', index });
    } else if (block!.kind !== 'reasoning') return [];
    const text = stringOf(reasoning.text);
    if (text) parts.push({ type: 'reasoning_delta', index, text });
    const signature = stringOf(reasoning.signature);
    if (signature) parts.push({ type: 'reasoning_signature', index, signature });
    return parts;
  }

  private blockStop(data: JsonObject): StreamPart[] {
    const upstreamIndex = countOf(data.contentBlockIndex);
    const block = this.blocks.get(upstreamIndex);
    if (!block) return [];
    this.blocks.delete(upstreamIndex);
    return blockEnd(block.kind, block.index);
  }

  /** Blocks the upstream never stopped; closed so every start has its end. */
  private closeBlocks(): StreamPart[] {
    const parts = [...this.blocks.values()].flatMap((block) => blockEnd(block.kind, block.index));
    this.blocks.clear();
    return parts;
  }

  private finish(): StreamPart[] {
    const parts = this.closeBlocks();
    this.finished = true;
    const raw = this.stopReason ?? null;
    const answeredByOutputTool = raw === 'tool_use' && this.outputToolName !== undefined && !this.calledClientTool;
    parts.push(streamFinish(raw, finishReasonOf, answeredByOutputTool, this.stopSequence));
    return parts;
  }
}


/** Converse `stopReason` → FinishReason; the raw value travels next to it. */
export function finishReasonOf(stopReason: string | null): FinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    case 'malformed_model_output':
    case 'malformed_tool_use':
      return 'error';
    default:
      // end_turn, stop_sequence, and unknown values.
      return 'stop';
  }
}

/**
 * Converse TokenUsage → Usage. `inputTokens` counts neither cache reads nor cache writes (as
 * Anthropic's input_tokens); our inputTokens holds all three. Converse does not break
 * reasoning out of outputTokens.
 */
export function usageOf(usage: JsonObject): Usage {
  const read = countOf(usage.cacheReadInputTokens);
  const write = countOf(usage.cacheWriteInputTokens);
  return {
    inputTokens: countOf(usage.inputTokens) + read + write,
    cachedInputTokens: read,
    cacheWriteInputTokens: write,
    outputTokens: countOf(usage.outputTokens),
    reasoningTokens: 0,
  };
}
