// Streams a response as Anthropic Messages events (wire-formats §2 "Streaming", §8), each
// with its `event:` line:
//   message_start        once, before the first block (usage: the input side reported so far)
//   content_block_start  {text: ""} | {thinking: "", signature: ""} | {redacted_thinking, data} |
//                        {tool_use, id, name, input: {}}
//   content_block_delta  text_delta | citations_delta | thinking_delta | signature_delta | input_json_delta
//   content_block_stop
//   message_delta        {stop_reason, stop_sequence} and the final usage      ← in end()
//   message_stop                                                              ← in end()
//
// Blocks go out strictly one after another, numbered 0..n-1 in emission order, whatever the
// internal indexes. Internal blocks may interleave (parallel tool calls from OpenAI-kind
// upstreams): a block that starts while another is open waits, with its parts, until the
// open one ends (or the message finishes), then goes out in order — nothing is dropped.
//
// message_delta is written by end(), not at the finish part: OpenAI-kind upstreams report
// usage after their finish reason, and end() receives the final (possibly estimated) usage.
import type { ChatRequest, FinishReason, StreamPart, Usage } from '../../model/chat.js';
import type { StreamEncoder } from '../types.js';
import { toAnthropicStopReason } from '../shared/finish-reasons.js';
import { withIdPrefix } from '../shared/ids.js';
import { sseEvent } from '../shared/sse.js';
import { encodeCitation, encodeMessagesUsage } from './blocks.js';
import { messageIdPrefix } from './result.js';

type BlockPart = Exclude<StreamPart, { type: 'start' | 'usage' | 'finish' }>;
type StartPart = Extract<BlockPart, { type: 'text_start' | 'reasoning_start' | 'tool_call_start' | 'redacted_reasoning' }>;

interface Waiting {
  readonly index: number;
  readonly parts: BlockPart[];
  ended: boolean;
}

function isStart(part: BlockPart): part is StartPart {
  return part.type === 'text_start' || part.type === 'reasoning_start' || part.type === 'tool_call_start' || part.type === 'redacted_reasoning';
}

function isEnd(part: BlockPart): boolean {
  return part.type === 'text_end' || part.type === 'reasoning_end' || part.type === 'tool_call_end';
}

export class MessagesStreamEncoder implements StreamEncoder {
  private readonly id: string;
  private started = false;
  private usage: Usage | undefined;
  private finish: { reason: FinishReason; raw: string | null; stopSequence: string | null } | undefined;
  /** The block open on the wire: its internal index and its wire index. */
  private open: { index: number; wire: number; text?: boolean } | undefined;
  private readonly waiting: Waiting[] = [];
  private nextWire = 0;
  /** Internal indexes of text blocks already closed on the wire. */
  private readonly closedText = new Set<number>();
  private nextSynthetic = 0;

  constructor(
    private readonly request: ChatRequest,
    context: { id: string; created: number },
  ) {
    this.id = withIdPrefix(context.id, messageIdPrefix);
  }

  encode(part: StreamPart): string {
    switch (part.type) {
      case 'start':
        return '';
      case 'usage':
        this.usage = part.usage; // the last report wins; message_start shows it if it is not out yet
        return '';
      case 'finish':
        this.finish = { reason: part.finishReason, raw: part.rawFinishReason, stopSequence: part.stopSequence ?? null };
        return this.begin() + this.closeAll();
      default:
        return this.begin() + this.block(part);
    }
  }

  end(usage: Usage): string {
    const finish = this.finish ?? { reason: 'stop', raw: null, stopSequence: null };
    const stopReason = toAnthropicStopReason(finish.reason, finish.raw, finish.stopSequence);
    const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } = encodeMessagesUsage(usage);
    return (
      this.begin() +
      this.closeAll() +
      this.event({
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: stopReason === 'stop_sequence' ? finish.stopSequence : null },
        usage: { output_tokens, input_tokens, cache_read_input_tokens, cache_creation_input_tokens },
      }) +
      this.event({ type: 'message_stop' })
    );
  }

  error(message: string, type: string): string {
    return this.event({ type: 'error', error: { type, message } });
  }

  private event(data: { type: string } & Record<string, unknown>): string {
    return sseEvent(data, data.type);
  }

  private begin(): string {
    if (this.started) return '';
    this.started = true;
    const usage = encodeMessagesUsage(this.usage ?? { inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 0, reasoningTokens: 0 });
    return this.event({
      type: 'message_start',
      message: { id: this.id, type: 'message', role: 'assistant', model: this.request.model, content: [], stop_reason: null, stop_sequence: null, usage },
    });
  }

  private block(part: BlockPart): string {
    if (isStart(part)) {
      if (this.open === undefined && this.waiting.length === 0) return this.openBlock(part);
      this.waiting.push({ index: part.index, parts: [part], ended: part.type === 'redacted_reasoning' });
      return '';
    }
    if (this.open?.index === part.index) return isEnd(part) ? this.closeOpen() + this.drain() : this.delta(part);
    const waiting = this.waiting.find((w) => w.index === part.index);
    if (waiting) {
      if (isEnd(part)) waiting.ended = true;
      else waiting.parts.push(part);
      return '';
    }
    if (part.type === 'citation' && this.closedText.has(part.index)) return this.lateCitation(part);
    return ''; // a part of a block already closed (or never started): nothing can carry it
  }

  /**
   * A citation for a text block already closed on the wire (upstreams that annotate after the
   * text) goes out in an empty text block of its own rather than being lost; the non-streamed
   * body has it on the cited block.
   */
  private lateCitation(part: Extract<BlockPart, { type: 'citation' }>): string {
    const index = -1 - this.nextSynthetic++;
    const parts: BlockPart[] = [{ type: 'text_start', index }, { ...part, index }];
    if (this.open === undefined && this.waiting.length === 0) {
      return this.openBlock(parts[0]!) + this.delta(parts[1]!) + this.closeOpen();
    }
    this.waiting.push({ index, parts, ended: true });
    return '';
  }

  private openBlock(part: BlockPart): string {
    const wire = this.nextWire++;
    const start = (contentBlock: Record<string, unknown>) => this.event({ type: 'content_block_start', index: wire, content_block: contentBlock });
    switch (part.type) {
      case 'text_start':
        this.open = { index: part.index, wire, text: true };
        return start({ type: 'text', text: '' });
      case 'reasoning_start':
        this.open = { index: part.index, wire };
        return start({ type: 'thinking', thinking: '', signature: '' });
      case 'tool_call_start':
        this.open = { index: part.index, wire };
        return start({ type: 'tool_use', id: part.id, name: part.name, input: {} });
      case 'redacted_reasoning':
        return start({ type: 'redacted_thinking', data: part.data }) + this.event({ type: 'content_block_stop', index: wire });
      default:
        return '';
    }
  }

  private delta(part: BlockPart): string {
    const delta = (value: Record<string, unknown>) => this.event({ type: 'content_block_delta', index: this.open!.wire, delta: value });
    switch (part.type) {
      case 'text_delta':
        return part.text === '' ? '' : delta({ type: 'text_delta', text: part.text });
      case 'citation':
        return delta({ type: 'citations_delta', citation: encodeCitation(part.citation) });
      case 'reasoning_delta':
        return part.text === '' ? '' : delta({ type: 'thinking_delta', thinking: part.text });
      case 'reasoning_signature':
        return delta({ type: 'signature_delta', signature: part.signature });
      case 'tool_call_delta':
        return part.argumentsDelta === '' ? '' : delta({ type: 'input_json_delta', partial_json: part.argumentsDelta });
      default:
        return '';
    }
  }

  private closeOpen(): string {
    if (!this.open) return '';
    const { index, wire, text } = this.open;
    if (text) this.closedText.add(index);
    this.open = undefined;
    return this.event({ type: 'content_block_stop', index: wire });
  }

  /** Sends waiting blocks, in the order they started, until one is still receiving parts. */
  private drain(): string {
    let out = '';
    while (this.open === undefined && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      const [start, ...rest] = next.parts;
      out += this.openBlock(start!);
      for (const part of rest) out += this.delta(part);
      if (next.ended) out += this.closeOpen();
    }
    return out;
  }

  /** At the finish: the open block ends, every waiting block goes out whole. */
  private closeAll(): string {
    for (const waiting of this.waiting) waiting.ended = true;
    return this.closeOpen() + this.drain();
  }
}
