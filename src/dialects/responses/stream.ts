// Stream parts → the Responses API event stream (wire-formats §3, verified sequence):
//   response.created, response.in_progress,
//   per text block:      output_item.added(message), content_part.added, output_text.delta*,
//                        output_text.annotation.added*, output_text.done, content_part.done, output_item.done
//   per reasoning block: output_item.added(reasoning), reasoning_summary_part.added,
//                        reasoning_summary_text.delta*, reasoning_summary_text.done,
//                        reasoning_summary_part.done, output_item.done (encrypted_content = signature)
//   per tool call:       output_item.added(function_call), function_call_arguments.delta*,
//                        function_call_arguments.done, output_item.done
//   response.completed | response.incomplete | response.failed (the full response, with usage).
// Every event carries a strictly increasing sequence_number from 0. Blocks are forwarded as
// they arrive (tool calls may interleave); output_index counts items in the order they start.
// The terminal event is written by end(): only then is the final usage known (it may be the
// gateway's own estimate). No `[DONE]`: Responses streams close after the terminal event.
import type { ChatRequest, Citation, FinishReason, StreamPart, Usage } from '../../model/chat.js';
import type { StreamEncoder } from '../types.js';
import {
  encodeUsage,
  errorCodeOf,
  functionCallItem,
  hasKnownSpan,
  itemIdOf,
  messageItem,
  outputTextPart,
  reasoningItem,
  redactedPrefix,
  responseIdOf,
  responseObject,
  terminalStateOf,
  urlCitationOf,
  type ItemStatus,
  type UrlCitation,
} from './items.js';
import { sseFrame } from './sse.js';

type ItemState =
  | { kind: 'message'; id: string; outputIndex: number; done: boolean; text: string; annotations: UrlCitation[]; late: Citation[] }
  | { kind: 'reasoning'; id: string; outputIndex: number; done: boolean; text: string; summaryOpen: boolean; encryptedContent: string | null }
  | { kind: 'function_call'; id: string; outputIndex: number; done: boolean; callId: string; name: string; arguments: string };

export class ResponsesStreamEncoder implements StreamEncoder {
  private readonly responseId: string;
  private sequenceNumber = 0;
  private opened = false;
  private terminated = false;
  private readonly items: ItemState[] = [];
  /** Item state by the stream part's block index (sparse, any order). */
  private readonly blocks = new Map<number, ItemState>();
  private finishReason: FinishReason = 'stop';
  private usage: Usage | undefined;

  constructor(
    private readonly request: ChatRequest,
    private readonly context: { id: string; created: number },
  ) {
    this.responseId = responseIdOf(context.id);
  }

  encode(part: StreamPart): string {
    if (this.terminated) return '';
    let out = this.open();
    switch (part.type) {
      case 'start':
        break;
      case 'text_start': {
        const item = this.startItem(part.index, 'msg', (id, outputIndex) => ({ kind: 'message', id, outputIndex, done: false, text: '', annotations: [], late: [] }));
        out += this.event('response.output_item.added', { output_index: item.outputIndex, item: messageItem(item.id, 'in_progress', []) });
        out += this.event('response.content_part.added', { ...this.textPosition(item), part: outputTextPart('', []) });
        break;
      }
      case 'text_delta': {
        const item = this.openBlock(part.index, 'message');
        if (!item || !part.text) break;
        item.text += part.text;
        out += this.event('response.output_text.delta', { ...this.textPosition(item), delta: part.text, logprobs: [] });
        break;
      }
      case 'citation': {
        const item = this.blocks.get(part.index);
        if (item?.kind !== 'message') break;
        // A span is needed now; without one the citation covers the whole text, known at its end.
        if (hasKnownSpan(part.citation) || item.done) out += this.annotate(item, part.citation);
        else item.late.push(part.citation);
        break;
      }
      case 'text_end': {
        const item = this.openBlock(part.index, 'message');
        if (item) out += this.finishItem(item);
        break;
      }
      case 'reasoning_start': {
        const item = this.startItem(part.index, 'rs', (id, outputIndex) => ({ kind: 'reasoning', id, outputIndex, done: false, text: '', summaryOpen: false, encryptedContent: null }));
        out += this.event('response.output_item.added', { output_index: item.outputIndex, item: { id: item.id, type: 'reasoning', summary: [] } });
        break;
      }
      case 'reasoning_delta': {
        const item = this.openBlock(part.index, 'reasoning');
        if (!item || !part.text) break;
        if (!item.summaryOpen) {
          // Opened on the first text, so reasoning that arrives only encrypted has an empty summary.
          item.summaryOpen = true;
          out += this.event('response.reasoning_summary_part.added', { ...this.summaryPosition(item), part: { type: 'summary_text', text: '' } });
        }
        item.text += part.text;
        out += this.event('response.reasoning_summary_text.delta', { ...this.summaryPosition(item), delta: part.text });
        break;
      }
      case 'reasoning_signature': {
        // Kept even after the item closed: the terminal response carries it.
        const item = this.blocks.get(part.index);
        if (item?.kind === 'reasoning') item.encryptedContent = part.signature;
        break;
      }
      case 'reasoning_end': {
        const item = this.openBlock(part.index, 'reasoning');
        if (item) out += this.finishItem(item);
        break;
      }
      case 'redacted_reasoning': {
        const item = this.startItem(part.index, 'rs', (id, outputIndex) => ({
          kind: 'reasoning',
          id,
          outputIndex,
          done: false,
          text: '',
          summaryOpen: false,
          encryptedContent: redactedPrefix + part.data,
        }));
        out += this.event('response.output_item.added', { output_index: item.outputIndex, item: { id: item.id, type: 'reasoning', summary: [] } });
        out += this.finishItem(item);
        break;
      }
      case 'tool_call_start': {
        const item = this.startItem(part.index, 'fc', (id, outputIndex) => ({ kind: 'function_call', id, outputIndex, done: false, callId: part.id, name: part.name, arguments: '' }));
        out += this.event('response.output_item.added', { output_index: item.outputIndex, item: this.itemOf(item, 'in_progress') });
        break;
      }
      case 'tool_call_delta': {
        const item = this.openBlock(part.index, 'function_call');
        if (!item || !part.argumentsDelta) break;
        item.arguments += part.argumentsDelta;
        out += this.event('response.function_call_arguments.delta', { item_id: item.id, output_index: item.outputIndex, delta: part.argumentsDelta });
        break;
      }
      case 'tool_call_end': {
        const item = this.openBlock(part.index, 'function_call');
        if (item) out += this.finishItem(item);
        break;
      }
      case 'usage':
        this.usage = part.usage;
        break;
      case 'finish':
        this.finishReason = part.finishReason;
        break;
    }
    return out;
  }

  end(usage: Usage): string {
    if (this.terminated) return '';
    let out = this.open();
    for (const item of this.items) if (!item.done) out += this.finishItem(item);
    this.terminated = true;
    const state = terminalStateOf(this.finishReason);
    const response = { ...this.response(), ...state, output: this.items.map((item) => this.itemOf(item, 'completed')), usage: encodeUsage(usage) };
    return out + this.event(`response.${state.status}`, { response });
  }

  error(message: string, type: string): string {
    if (this.terminated) return '';
    let out = this.open();
    this.terminated = true;
    const code = errorCodeOf(type);
    out += this.event('error', { code, message, param: null });
    // The response object exists (response.created went out): it ends as failed, keeping
    // what was produced; items cut short are marked incomplete.
    const response = {
      ...this.response(),
      status: 'failed' as const,
      error: { code, message },
      output: this.items.map((item) => this.itemOf(item, item.done ? 'completed' : 'incomplete')),
      usage: this.usage ? encodeUsage(this.usage) : null,
    };
    return out + this.event('response.failed', { response });
  }

  private open(): string {
    if (this.opened) return '';
    this.opened = true;
    return this.event('response.created', { response: this.response() }) + this.event('response.in_progress', { response: this.response() });
  }

  private response() {
    return responseObject(this.request, this.responseId, this.context.created);
  }

  private event(type: string, fields: Record<string, unknown>): string {
    return sseFrame(type, { type, sequence_number: this.sequenceNumber++, ...fields });
  }

  private startItem<S extends ItemState>(index: number, prefix: 'msg' | 'rs' | 'fc', make: (id: string, outputIndex: number) => S): S {
    const outputIndex = this.items.length;
    const item = make(itemIdOf(prefix, this.responseId, outputIndex), outputIndex);
    this.items.push(item);
    this.blocks.set(index, item);
    return item;
  }

  /** The still-open item of a block; parts for unknown or closed blocks are dropped. */
  private openBlock<K extends ItemState['kind']>(index: number, kind: K): Extract<ItemState, { kind: K }> | undefined {
    const item = this.blocks.get(index);
    return item && item.kind === kind && !item.done ? (item as Extract<ItemState, { kind: K }>) : undefined;
  }

  private textPosition(item: ItemState) {
    return { item_id: item.id, output_index: item.outputIndex, content_index: 0 };
  }

  private summaryPosition(item: ItemState) {
    return { item_id: item.id, output_index: item.outputIndex, summary_index: 0 };
  }

  private annotate(item: Extract<ItemState, { kind: 'message' }>, citation: Citation): string {
    const annotation = urlCitationOf(citation, item.text.length);
    item.annotations.push(annotation);
    return this.event('response.output_text.annotation.added', { ...this.textPosition(item), annotation_index: item.annotations.length - 1, annotation });
  }

  private finishItem(item: ItemState): string {
    let out = '';
    switch (item.kind) {
      case 'message': {
        for (const citation of item.late.splice(0)) out += this.annotate(item, citation);
        out += this.event('response.output_text.done', { ...this.textPosition(item), text: item.text, logprobs: [] });
        out += this.event('response.content_part.done', { ...this.textPosition(item), part: outputTextPart(item.text, item.annotations) });
        break;
      }
      case 'reasoning':
        if (item.summaryOpen) {
          out += this.event('response.reasoning_summary_text.done', { ...this.summaryPosition(item), text: item.text });
          out += this.event('response.reasoning_summary_part.done', { ...this.summaryPosition(item), part: { type: 'summary_text', text: item.text } });
        }
        break;
      case 'function_call':
        out += this.event('response.function_call_arguments.done', { item_id: item.id, output_index: item.outputIndex, name: item.name, arguments: item.arguments });
        break;
    }
    item.done = true;
    return out + this.event('response.output_item.done', { output_index: item.outputIndex, item: this.itemOf(item, 'completed') });
  }

  private itemOf(item: ItemState, status: ItemStatus) {
    switch (item.kind) {
      case 'message':
        return messageItem(item.id, status, [outputTextPart(item.text, item.annotations)]);
      case 'reasoning':
        return reasoningItem(item.id, item.text, item.encryptedContent);
      case 'function_call':
        return functionCallItem(item.id, { id: item.callId, name: item.name, arguments: item.arguments }, status);
    }
  }
}
