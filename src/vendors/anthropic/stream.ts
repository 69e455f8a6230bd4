// Anthropic Messages SSE (wire-formats §2 "Streaming") → StreamParts.
//   message_start            → start + usage (the input side)
//   content_block_start      → text_start | reasoning_start | redacted_reasoning | tool_call_start
//   content_block_delta      → text_delta | reasoning_delta | reasoning_signature | tool_call_delta | citation
//   content_block_stop       → text_end | reasoning_end | tool_call_end
//   message_delta            → usage (merged with message_start's) ; stop_reason remembered
//   message_stop             → finish
//   error                    → throws UpstreamError ; ping → nothing
// Block indexes are renumbered densely over the blocks we represent: server-tool blocks
// (server_tool_use, web_search_tool_result…) are skipped — their results reach the text as
// citations — so the internal counter never has holes.
import type { Citation, StreamPart } from '../../model/chat.js';
import type { SseEvent, UpstreamStreamParser } from '../types.js';
import { blockEnd, type StreamBlockKind, streamFinish } from '../shared/block-turns.js';
import { isObject, objectOf, parseEventJson, stringOf, type JsonObject } from '../shared/json.js';
import { errorFromStreamEvent, truncatedStreamError } from '../shared/upstream-errors.js';
import { finishReasonOf } from './stop-reason.js';
import { mergeCounts, noCounts, usageOf, type UsageCounts } from './usage.js';

type BlockKind = StreamBlockKind;

export class MessagesStreamParser implements UpstreamStreamParser {
  private sawEvent = false;
  private nextIndex = 0;
  /** Our block (kind, index) by the upstream's block index, while open. */
  private readonly blocks = new Map<number, { readonly kind: BlockKind; readonly index: number }>();
  private counts: UsageCounts = noCounts;
  /** undefined until message_delta brings one. */
  private stopReason: string | null | undefined;
  private stopSequence: string | null = null;
  private finished = false;
  /** Whether a tool_use block of a client tool was seen (then `tool_use` means tool calls). */
  private calledClientTool = false;

  /** `outputToolName`: the forced output tool of a structured-output request, read as text. */
  constructor(private readonly outputToolName?: string) {}

  push(event: SseEvent): StreamPart[] {
    if (this.finished || event.data.trim() === '') return [];
    const data = parseEventJson(event.data);
    if (!isObject(data)) return [];
    this.sawEvent = true;
    const type = stringOf(data.type) ?? event.event;
    switch (type) {
      case 'message_start':
        return this.messageStart(objectOf(data.message) ?? {});
      case 'content_block_start':
        return this.blockStart(data);
      case 'content_block_delta':
        return this.blockDelta(data);
      case 'content_block_stop':
        return this.blockStop(data);
      case 'message_delta':
        return this.messageDelta(data);
      case 'message_stop':
        return this.finish();
      case 'error':
        throw errorFromStreamEvent(data);
      default:
        return []; // ping, and events this adapter does not know
    }
  }

  /**
   * The body ended. After message_delta only message_stop is missing and the answer is whole;
   * before it the stream was cut: an error, so the client learns its answer is incomplete
   * and the pipeline bills only what was produced.
   */
  end(): StreamPart[] {
    if (this.finished) return [];
    if (this.stopReason === undefined) throw truncatedStreamError(this.sawEvent);
    return this.finish();
  }

  private messageStart(message: JsonObject): StreamPart[] {
    const parts: StreamPart[] = [{ type: 'start', id: stringOf(message.id) ?? '', model: stringOf(message.model) ?? '' }];
    const usage = objectOf(message.usage);
    if (usage) {
      this.counts = mergeCounts(this.counts, usage);
      parts.push({ type: 'usage', usage: usageOf(this.counts) });
    }
    return parts;
  }

  private blockStart(data: JsonObject): StreamPart[] {
    const block = objectOf(data.content_block) ?? {};
    const upstreamIndex = typeof data.index === 'number' ? data.index : -1;
    const open = (kind: BlockKind) => {
      const index = this.nextIndex++;
      this.blocks.set(upstreamIndex, { kind, index });
      return index;
    };
    switch (block.type) {
      case 'text': {
        const index = open('text');
        const parts: StreamPart[] = [{ type: 'text_start', index }];
        const text = stringOf(block.text);
        if (text) parts.push({ type: 'text_delta', index, text });
        return parts;
      }
      case 'thinking': {
        const index = open('reasoning');
        const parts: StreamPart[] = [{ type: 'reasoning_start', index }];
        const text = stringOf(block.thinking);
        if (text) parts.push({ type: 'reasoning_delta', index, text });
        const signature = stringOf(block.signature);
        if (signature) parts.push({ type: 'reasoning_signature', index, signature });
        return parts;
      }
      case 'redacted_thinking':
        // Complete in its start event; its content_block_stop adds nothing.
        return [{ type: 'redacted_reasoning', index: open('redacted'), data: stringOf(block.data) ?? '' }];
      case 'tool_use': {
        if (this.outputToolName !== undefined && block.name === this.outputToolName) {
          const index = open('text');
          const input = objectOf(block.input);
          const parts: StreamPart[] = [{ type: 'text_start', index }];
          if (input && Object.keys(input).length > 0) parts.push({ type: 'text_delta', index, text: JSON.stringify(input) });
          return parts;
        }
        this.calledClientTool = true;
        const index = open('tool');
        const parts: StreamPart[] = [{ type: 'tool_call_start', index, id: stringOf(block.id) ?? '', name: stringOf(block.name) ?? '' }];
        // Always {} in practice (the arguments follow as input_json_delta).
        const input = objectOf(block.input);
        if (input && Object.keys(input).length > 0) parts.push({ type: 'tool_call_delta', index, argumentsDelta: JSON.stringify(input) });
        return parts;
      }
      default:
        return [];
    }
  }

  private blockDelta(data: JsonObject): StreamPart[] {
    const block = typeof data.index === 'number' ? this.blocks.get(data.index) : undefined;
    const delta = objectOf(data.delta);
    if (!block || !delta) return [];
    const { index } = block;
    switch (delta.type) {
      case 'text_delta': {
        const text = stringOf(delta.text);
        return text ? [{ type: 'text_delta', index, text }] : [];
      }
      case 'thinking_delta': {
        const text = stringOf(delta.thinking);
        return text ? [{ type: 'reasoning_delta', index, text }] : [];
      }
      case 'signature_delta': {
        const signature = stringOf(delta.signature);
        return signature ? [{ type: 'reasoning_signature', index, signature }] : [];
      }
      case 'input_json_delta': {
        const fragment = stringOf(delta.partial_json);
        if (!fragment) return [];
        return block.kind === 'text' ? [{ type: 'text_delta', index, text: fragment }] : [{ type: 'tool_call_delta', index, argumentsDelta: fragment }];
      }
      case 'citations_delta': {
        const citation = citationOf(objectOf(delta.citation));
        return citation ? [{ type: 'citation', index, citation }] : [];
      }
      default:
        return [];
    }
  }

  private blockStop(data: JsonObject): StreamPart[] {
    const upstreamIndex = typeof data.index === 'number' ? data.index : -1;
    const block = this.blocks.get(upstreamIndex);
    if (!block) return [];
    this.blocks.delete(upstreamIndex);
    return blockEnd(block.kind, block.index);
  }

  private messageDelta(data: JsonObject): StreamPart[] {
    const delta = objectOf(data.delta) ?? {};
    this.stopReason = stringOf(delta.stop_reason) ?? null;
    this.stopSequence = stringOf(delta.stop_sequence) ?? null;
    const usage = objectOf(data.usage);
    if (!usage) return [];
    this.counts = mergeCounts(this.counts, usage);
    return [{ type: 'usage', usage: usageOf(this.counts) }];
  }

  private finish(): StreamPart[] {
    // Blocks still open here were never stopped by the upstream; close them so every start has its end.
    const parts = [...this.blocks.values()].flatMap((block) => blockEnd(block.kind, block.index));
    this.blocks.clear();
    this.finished = true;
    const raw = this.stopReason ?? null;
    const answeredByOutputTool = raw === 'tool_use' && this.outputToolName !== undefined && !this.calledClientTool;
    parts.push(streamFinish(raw, finishReasonOf, answeredByOutputTool, this.stopSequence));
    return parts;
  }
}


/**
 * A citations_delta citation. Web search results (`web_search_result_location`) carry url and
 * title; `search_result_location` names its source. Document citations (char/page/block
 * locations) point into a document the client sent, with no URL: they have no Citation form
 * and are dropped.
 */
function citationOf(citation: JsonObject | undefined): Citation | undefined {
  if (!citation) return undefined;
  const url = stringOf(citation.url) ?? (citation.type === 'search_result_location' ? stringOf(citation.source) : undefined);
  if (!url) return undefined;
  const title = stringOf(citation.title);
  const citedText = stringOf(citation.cited_text);
  return { url, ...(title ? { title } : {}), ...(citedText ? { citedText } : {}) };
}
