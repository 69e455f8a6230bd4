// Streams an answer as Gemini's server-sent events (`?alt=sse`): each `data:` line a whole
// GenerateContentResponse holding what is new since the last one.
//   text delta       → a chunk with a text part
//   reasoning delta  → a chunk with a thought part (only when includeThoughts was asked);
//                      its signature → a thought part with thoughtSignature and empty text
//   a function call  → one chunk with the functionCall part, when its arguments are complete
//                      (Gemini streams function calls whole, never their arguments in pieces)
//   end              → a last chunk: finishReason, groundingMetadata, usageMetadata
// Citations are gathered and sent in the last chunk's groundingMetadata.
import type { ChatRequest, FinishReason, StreamPart, Usage } from '../../model/chat.js';
import { sseEvent } from '../shared/sse.js';
import type { StreamEncoder } from '../types.js';
import { streamErrorBody } from './error.js';
import { functionArgs, groundingMetadata, type PlacedCitation } from './parts.js';
import { encodeUsageMetadata, toGeminiFinishReason } from './usage.js';

interface OpenCall {
  readonly id: string;
  readonly name: string;
  args: string;
}

export class GeminiStreamEncoder implements StreamEncoder {
  private readonly calls = new Map<number, OpenCall>();
  private readonly citations: { index: number; citation: PlacedCitation['citation'] }[] = [];
  /** Characters of text streamed per internal block, for citations that apply to a whole block. */
  private readonly textLengths = new Map<number, number>();
  private finish: { reason: FinishReason; raw: string | null } | undefined;

  constructor(
    private readonly request: ChatRequest,
    private readonly context: { id: string; created: number },
  ) {}

  encode(part: StreamPart): string {
    switch (part.type) {
      case 'text_delta':
        this.textLengths.set(part.index, (this.textLengths.get(part.index) ?? 0) + part.text.length);
        return part.text === '' ? '' : this.chunk([{ text: part.text }]);
      case 'reasoning_delta':
        return this.request.showReasoning && part.text !== '' ? this.chunk([{ text: part.text, thought: true }]) : '';
      case 'reasoning_signature':
        return this.request.showReasoning ? this.chunk([{ text: '', thought: true, thoughtSignature: part.signature }]) : '';
      case 'tool_call_start':
        this.calls.set(part.index, { id: part.id, name: part.name, args: '' });
        return '';
      case 'tool_call_delta': {
        const call = this.calls.get(part.index);
        if (call) call.args += part.argumentsDelta;
        return '';
      }
      case 'tool_call_end':
        return this.sendCall(part.index);
      case 'citation':
        this.citations.push({ index: part.index, citation: part.citation });
        return '';
      case 'finish':
        this.finish = { reason: part.finishReason, raw: part.rawFinishReason };
        return this.sendOpenCalls();
      default:
        return '';
    }
  }

  end(usage: Usage): string {
    const finish = this.finish ?? { reason: 'stop', raw: null };
    const grounding = groundingMetadata(this.citations.map(({ index, citation }) => ({ citation, textLength: this.textLengths.get(index) })));
    const candidate = {
      // A part, even empty: the SDK's chat keeps a streamed turn only if every chunk has one.
      content: { role: 'model', parts: [{ text: '' }] },
      finishReason: toGeminiFinishReason(finish.reason, finish.raw),
      index: 0,
      ...(grounding ? { groundingMetadata: grounding } : {}),
    };
    return this.sendOpenCalls() + this.response([candidate], usage);
  }

  error(message: string, type: string): string {
    return sseEvent(streamErrorBody(message, type));
  }

  private sendCall(index: number): string {
    const call = this.calls.get(index);
    if (!call) return '';
    this.calls.delete(index);
    return this.chunk([{ functionCall: { id: call.id, name: call.name, args: functionArgs(call.args) } }]);
  }

  /** Calls whose end never came (the stream finished first) go out as they are. */
  private sendOpenCalls(): string {
    return [...this.calls.keys()].map((index) => this.sendCall(index)).join('');
  }

  private chunk(parts: Record<string, unknown>[]): string {
    return this.response([{ content: { role: 'model', parts }, index: 0 }]);
  }

  private response(candidates: Record<string, unknown>[], usage?: Usage): string {
    return sseEvent({
      candidates,
      ...(usage ? { usageMetadata: encodeUsageMetadata(usage) } : {}),
      modelVersion: this.request.model,
      responseId: this.context.id,
    });
  }
}
