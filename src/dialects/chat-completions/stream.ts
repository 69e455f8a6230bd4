// Streams a response as Chat Completions chunks (wire-formats §1 "Streaming", §8):
//   first chunk   delta {role: "assistant", content: ""}
//   text          delta {content}
//   reasoning     delta {reasoning_content} as the text arrives
//   tool calls    {index, id, type, function: {name, arguments: ""}}, then {index, function:
//                 {arguments}} — index = position among the tool calls, not the block index
//   summary       one delta just before the finish chunk, with the list-valued fields, each
//                 complete: `reasoning_details` (the extension of reasoning-details.ts: every
//                 reasoning block with its signature, every redacted block) and `annotations`
//                 (url citations; offsets need the whole text). Sent once and whole because
//                 the SDK's stream accumulator keeps only the LAST value of such fields
//                 (openai-node ChatCompletionStream: Object.assign), so the message that
//                 finalChatCompletion() returns can be sent back as is, signatures included;
//                 a client that concatenates the lists across chunks gets the same list.
//   finish        delta {}, finish_reason
//   end()         with stream_options.include_usage a chunk with `choices: []` and usage
//                 (every chunk before it carries `usage: null`, as OpenAI does), then [DONE].
import type { ChatRequest, Citation, FinishReason, RedactedReasoningPart, StreamPart, Usage } from '../../model/chat.js';
import type { StreamEncoder } from '../types.js';
import { toChatFinishReason, type ChatFinishReason } from '../shared/finish-reasons.js';
import { withIdPrefix } from '../shared/ids.js';
import { Ordinals } from '../shared/ordinals.js';
import { sseEvent } from '../shared/sse.js';
import { toAnnotation } from './annotations.js';
import { chatCompletionIdPrefix } from './result.js';
import { toReasoningDetail } from './reasoning-details.js';
import { encodeChatUsage } from './usage.js';

export class ChatCompletionsStreamEncoder implements StreamEncoder {
  private readonly id: string;
  private started = false;
  private finished = false;
  private readonly toolPositions = new Ordinals();
  /** Where each text block sits in the joined message text. */
  private readonly textSpans = new Map<number, { start: number; length: number }>();
  private textLength = 0;
  private readonly citations: { index: number; citation: Citation }[] = [];
  /** Reasoning blocks by index, for the reasoning_details list sent before the finish chunk. */
  private readonly reasoning = new Map<number, { type: 'reasoning'; text: string; signature?: string } | RedactedReasoningPart>();

  /**
   * Every chunk's event up to its delta and after its finish reason: the same for the whole
   * stream, so built once; a chunk then costs one JSON.stringify of its delta instead of a
   * fresh envelope, choice and usage object per text delta (the golden fixtures hold the bytes).
   */
  private readonly chunkHead: string;
  private readonly chunkTail: string;

  constructor(
    private readonly request: ChatRequest,
    private readonly context: { id: string; created: number },
  ) {
    this.id = withIdPrefix(context.id, chatCompletionIdPrefix);
    this.chunkHead = `data: ${JSON.stringify(this.envelope()).slice(0, -1)},"choices":[{"index":0,"delta":`;
    this.chunkTail = `,"logprobs":null}]${request.includeUsage ? ',"usage":null' : ''}}\n\n`;
  }

  encode(part: StreamPart): string {
    let out = this.start();
    switch (part.type) {
      case 'text_start':
        this.textSpan(part.index);
        break;
      case 'text_delta':
        if (part.text === '') break;
        this.textSpan(part.index).length += part.text.length;
        this.textLength += part.text.length;
        out += this.chunkOf(`{"content":${JSON.stringify(part.text)}}`);
        break;
      case 'citation':
        this.citations.push({ index: part.index, citation: part.citation });
        break;
      case 'reasoning_delta':
        if (part.text === '') break;
        this.reasoningBlock(part.index).text += part.text;
        out += this.chunkOf(`{"reasoning_content":${JSON.stringify(part.text)}}`);
        break;
      case 'reasoning_start':
        this.reasoningBlock(part.index);
        break;
      case 'reasoning_signature':
        this.reasoningBlock(part.index).signature = part.signature;
        break;
      case 'redacted_reasoning':
        this.reasoning.set(part.index, { type: 'redacted_reasoning', data: part.data });
        break;
      case 'tool_call_start':
        out += this.chunk({
          tool_calls: [{ index: this.toolPositions.of(part.index), id: part.id, type: 'function', function: { name: part.name, arguments: '' } }],
        });
        break;
      case 'tool_call_delta':
        if (part.argumentsDelta !== '') out += this.chunk({ tool_calls: [{ index: this.toolPositions.of(part.index), function: { arguments: part.argumentsDelta } }] });
        break;
      case 'finish':
        out += this.finish(part.finishReason);
        break;
      default: // start, usage and *_end say nothing in this dialect
        break;
    }
    return out;
  }

  end(usage: Usage): string {
    let out = this.start() + this.finish('stop'); // a stream must carry a finish_reason (the SDK helper insists)
    if (this.request.includeUsage) out += sseEvent({ ...this.envelope(), choices: [], usage: encodeChatUsage(usage) });
    return out + sseEvent('[DONE]');
  }

  error(message: string, type: string): string {
    return sseEvent({ error: { message, type, param: null, code: null } });
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    return this.chunk({ role: 'assistant', content: '' });
  }

  private finish(reason: FinishReason): string {
    if (this.finished) return '';
    this.finished = true;
    const summary: Record<string, unknown> = {};
    if (this.reasoning.size > 0) {
      summary.reasoning_details = [...this.reasoning.entries()].sort(([a], [b]) => a - b).map(([, block]) => toReasoningDetail(block));
    }
    if (this.citations.length > 0) {
      summary.annotations = this.citations.map(({ index, citation }) => {
        const span = this.textSpans.get(index) ?? { start: 0, length: 0 };
        return toAnnotation(citation, span.start, span.length);
      });
    }
    return (Object.keys(summary).length > 0 ? this.chunk(summary) : '') + this.chunk({}, toChatFinishReason(reason));
  }

  private reasoningBlock(index: number): { type: 'reasoning'; text: string; signature?: string } {
    let block = this.reasoning.get(index);
    if (block?.type !== 'reasoning') {
      block = { type: 'reasoning', text: '' };
      this.reasoning.set(index, block);
    }
    return block;
  }

  private textSpan(index: number): { start: number; length: number } {
    let span = this.textSpans.get(index);
    if (!span) {
      span = { start: this.textLength, length: 0 };
      this.textSpans.set(index, span);
    }
    return span;
  }

  private envelope() {
    return { id: this.id, object: 'chat.completion.chunk' as const, created: this.context.created, model: this.request.model };
  }

  private chunk(delta: Record<string, unknown>, finishReason: ChatFinishReason | null = null): string {
    return this.chunkOf(JSON.stringify(delta), finishReason);
  }

  /** One chunk event: {envelope, choices: [{index: 0, delta, finish_reason, logprobs: null}], usage: null if asked}. */
  private chunkOf(deltaJson: string, finishReason: ChatFinishReason | null = null): string {
    return `${this.chunkHead}${deltaJson},"finish_reason":${finishReason === null ? 'null' : JSON.stringify(finishReason)}${this.chunkTail}`;
  }
}
