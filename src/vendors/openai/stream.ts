// Chat Completions SSE chunks (wire-formats §1 "Streaming") → StreamParts. Shared by the
// openai and openai-compatible adapters; the options read what only compatible servers send.
//
// Blocks get indexes from one counter in the order they start:
//   - reasoning and text are sequential: opening one closes the other;
//   - each OpenAI tool position (`delta.tool_calls[].index`) is its own block, started with its
//     id and name when first seen; parallel calls stay open together and may interleave;
//   - a text or reasoning block that starts after tool calls closes them (they are complete);
//   - finish_reason closes everything.
// Usage is read from ANY chunk that has it (also one with non-empty choices: DESIGN.md §8),
// and the finish part waits for the end of the stream ([DONE] or end()) so that the usage of
// a trailing `choices: []` chunk comes before it.
import type { Citation, StreamPart } from '../../model/chat.js';
import type { SseEvent, UpstreamStreamParser } from '../types.js';
import { arrayOf, isObject, objectOf, parseEventJson, stringOf, type JsonObject } from '../shared/json.js';
import { errorFromStreamEvent, truncatedStreamError } from '../shared/upstream-errors.js';
import { finishReasonOf } from './finish-reason.js';
import { usageFromChatCompletions } from './usage.js';

export interface ChatCompletionsStreamOptions {
  /** The reasoning text of a delta (compatible servers); OpenAI sends none. */
  readonly reasoningOf?: (delta: JsonObject) => string | undefined;
  /** The citations a chunk carries; repeats across chunks are emitted once. */
  readonly citationsOf: (chunk: JsonObject, delta: JsonObject | undefined) => readonly Citation[];
}

interface ToolSlot {
  readonly index: number;
  readonly id: string;
  open: boolean;
}

export class ChatCompletionsStreamParser implements UpstreamStreamParser {
  private sawChunk = false;
  private started = false;
  private streamId = '';
  private nextIndex = 0;
  private openBlock: { readonly kind: 'text' | 'reasoning'; readonly index: number } | undefined;
  /** Tool calls by their upstream position. */
  private readonly tools = new Map<number, ToolSlot>();
  private lastToolPosition: number | undefined;
  /** The first text block: the one citations belong to. */
  private textIndex: number | undefined;
  private readonly citationKeys = new Set<string>();
  private pendingCitations: Citation[] = [];
  /** undefined until a finish_reason arrives. */
  private rawFinishReason: string | undefined;
  private sawRefusal = false;
  private finished = false;

  constructor(private readonly options: ChatCompletionsStreamOptions) {}

  push(event: SseEvent): StreamPart[] {
    if (this.finished) return [];
    const data = event.data.trim();
    if (data.startsWith('[DONE]')) return this.finish(true);
    if (data === '') return [];
    const chunk = parseEventJson(data);
    if (event.event === 'error' || (isObject(chunk) && chunk.error)) throw errorFromStreamEvent(chunk);
    if (!isObject(chunk)) return [];

    this.sawChunk = true;
    const id = stringOf(chunk.id) ?? '';
    const model = stringOf(chunk.model) ?? '';
    if (!this.started) this.streamId = id;
    const parts: StreamPart[] = [];
    // We never ask for n > 1: choice 0 is the answer.
    const choice = firstChoice(chunk.choices);
    const delta = objectOf(choice?.delta);
    if (delta) this.readDelta(delta, parts);
    this.readCitations(chunk, delta, parts);
    const finishReason = stringOf(choice?.finish_reason);
    if (finishReason !== undefined) {
      this.rawFinishReason = finishReason;
      this.closeAll(parts);
    }
    const usage = objectOf(chunk.usage);
    if (usage) parts.push({ type: 'usage', usage: usageFromChatCompletions(usage) });
    // `start` comes from the first chunk that names the response. Azure opens with a chunk of
    // prompt filter results whose id and model are empty: it starts nothing.
    if (!this.started && (id !== '' || model !== '' || parts.length > 0)) {
      this.started = true;
      parts.unshift({ type: 'start', id, model });
    }
    return parts;
  }

  end(): StreamPart[] {
    return this.finished ? [] : this.finish(false);
  }

  private readDelta(delta: JsonObject, parts: StreamPart[]): void {
    const reasoning = this.options.reasoningOf?.(delta);
    if (reasoning) parts.push({ type: 'reasoning_delta', index: this.ensureBlock('reasoning', parts), text: reasoning });
    const content = stringOf(delta.content);
    if (content) parts.push({ type: 'text_delta', index: this.ensureBlock('text', parts), text: content });
    // A refusal is the answer's text; the finish reason tells it apart.
    const refusal = stringOf(delta.refusal);
    if (refusal) {
      this.sawRefusal = true;
      parts.push({ type: 'text_delta', index: this.ensureBlock('text', parts), text: refusal });
    }
    arrayOf(delta.tool_calls).forEach((item, position) => {
      const call = objectOf(item);
      if (call) this.readToolCall(call, position, parts);
    });
  }

  private readToolCall(call: JsonObject, arrayPosition: number, parts: StreamPart[]): void {
    const fn = objectOf(call.function);
    const position = this.toolPositionOf(call, arrayPosition);
    this.lastToolPosition = position;
    let slot = this.tools.get(position);
    if (!slot) {
      this.closeOpenBlock(parts);
      // A server that sends no id still needs one: the client answers the call by it.
      slot = { index: this.nextIndex++, id: stringOf(call.id) ?? `call_${this.streamId || 'upstream'}_${position}`, open: true };
      this.tools.set(position, slot);
      parts.push({ type: 'tool_call_start', index: slot.index, id: slot.id, name: stringOf(fn?.name) ?? '' });
    }
    // A fragment for a call already closed (text came in between; not seen in practice) is
    // still forwarded: losing argument text would be worse than a late delta.
    const fragment = stringOf(fn?.arguments);
    if (fragment) parts.push({ type: 'tool_call_delta', index: slot.index, argumentsDelta: fragment });
  }

  /**
   * OpenAI numbers calls with `index`. Some servers (Gemini's OpenAI endpoint) leave it out:
   * then a new id is a new call and a fragment without an id continues the last call.
   */
  private toolPositionOf(call: JsonObject, arrayPosition: number): number {
    if (typeof call.index === 'number') return call.index;
    const id = stringOf(call.id);
    if (id === undefined) return this.lastToolPosition ?? arrayPosition;
    for (const [position, slot] of this.tools) if (slot.id === id) return position;
    return this.tools.size === 0 ? 0 : Math.max(...this.tools.keys()) + 1;
  }

  private readCitations(chunk: JsonObject, delta: JsonObject | undefined, parts: StreamPart[]): void {
    for (const citation of this.options.citationsOf(chunk, delta)) {
      const key = `${citation.url} ${citation.startIndex ?? ''} ${citation.endIndex ?? ''}`;
      if (this.citationKeys.has(key)) continue;
      this.citationKeys.add(key);
      if (this.textIndex === undefined) this.pendingCitations.push(citation);
      else parts.push({ type: 'citation', index: this.textIndex, citation });
    }
  }

  private ensureBlock(kind: 'text' | 'reasoning', parts: StreamPart[]): number {
    if (this.openBlock?.kind === kind) return this.openBlock.index;
    this.closeAll(parts);
    const index = this.nextIndex++;
    this.openBlock = { kind, index };
    parts.push({ type: kind === 'text' ? 'text_start' : 'reasoning_start', index });
    if (kind === 'text' && this.textIndex === undefined) {
      this.textIndex = index;
      // Citations that came before any text (Perplexity sends them from the first chunk).
      for (const citation of this.pendingCitations) parts.push({ type: 'citation', index, citation });
      this.pendingCitations = [];
    }
    return index;
  }

  private closeOpenBlock(parts: StreamPart[]): void {
    if (!this.openBlock) return;
    const { kind, index } = this.openBlock;
    parts.push({ type: kind === 'text' ? 'text_end' : 'reasoning_end', index });
    this.openBlock = undefined;
  }

  private closeAll(parts: StreamPart[]): void {
    this.closeOpenBlock(parts);
    for (const slot of this.tools.values()) {
      if (!slot.open) continue;
      slot.open = false;
      parts.push({ type: 'tool_call_end', index: slot.index });
    }
  }

  /**
   * `[DONE]` (sawDone) or the end of the body. Without a finish_reason and without `[DONE]`
   * the stream was cut: an error, not a quiet finish, so the client learns its answer is
   * incomplete and the pipeline bills only what was produced. Citations that never found a
   * text block (no text came) are dropped.
   */
  private finish(sawDone: boolean): StreamPart[] {
    if (!this.started || (this.rawFinishReason === undefined && !sawDone)) throw truncatedStreamError(this.sawChunk);
    const parts: StreamPart[] = [];
    this.closeAll(parts);
    this.finished = true;
    const raw = this.rawFinishReason ?? null;
    parts.push({
      type: 'finish',
      finishReason: finishReasonOf(raw, { sawToolCalls: this.tools.size > 0, sawRefusal: this.sawRefusal }),
      rawFinishReason: raw,
    });
    return parts;
  }
}

/** Choice 0 of a chunk's `choices` (by its index; a choice without one counts as 0). */
function firstChoice(choices: unknown): JsonObject | undefined {
  for (const item of arrayOf(choices)) {
    const choice = objectOf(item);
    if (choice !== undefined && (choice.index ?? 0) === 0) return choice;
  }
  return undefined;
}
