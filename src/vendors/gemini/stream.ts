// Gemini `streamGenerateContent?alt=sse` → StreamParts. Each event is a whole
// GenerateContentResponse holding the next piece of candidates[0].content.parts:
//   {text}                      → text_start (first) + text_delta
//   {text, thought: true}       → reasoning_start (first) + reasoning_delta
//   {thoughtSignature} on a part → a reasoning block with that signature: on a thought part its
//                               own block's; before a functionCall; after the text block of a text part
//   {functionCall: {name, args}} → tool_call_start + one tool_call_delta (the whole args) + tool_call_end
//   groundingMetadata           → citations on the text block (grounding.ts)
//   finishReason                → remembered; the stream's end then finishes (finish-reason.ts)
//   usageMetadata               → usage (the last chunk that carries it wins; usage.ts)
//   {error}                     → throws UpstreamError
// Gemini sends no end marker: a stream that ends without any finishReason was cut.
import { createHash } from 'node:crypto';
import type { StreamPart } from '../../model/chat.js';
import type { SseEvent, UpstreamStreamParser } from '../types.js';
import { arrayOf, isObject, objectOf, parseEventJson, stringOf, type JsonObject } from '../shared/json.js';
import { truncatedStreamError } from '../shared/upstream-errors.js';
import { geminiStreamError } from './errors.js';
import { finishReasonOf } from './finish-reason.js';
import { groundingCitations } from './grounding.js';
import { usageOf } from './usage.js';

interface OpenBlock {
  readonly kind: 'text' | 'reasoning';
  readonly index: number;
}

export class GeminiStreamParser implements UpstreamStreamParser {
  private started = false;
  private sawEvent = false;
  private nextIndex = 0;
  private open: OpenBlock | undefined;
  /** The signature of the open text block's last part, sent when that block ends. */
  private deferredSignature: string | undefined;
  /** The text block citations attach to, with the text so far (grounding offsets point into it). */
  private lastText: { index: number; text: string } | undefined;
  private readonly cited = new Set<string>();
  private toolCalls = 0;
  private responseId = '';
  private finishReason: string | undefined;
  private finished = false;

  push(event: SseEvent): StreamPart[] {
    if (this.finished || event.data.trim() === '') return [];
    const data = parseEventJson(event.data);
    // A stream error may come as {error} or [{error}].
    const chunk = Array.isArray(data) ? data[0] : data;
    if (!isObject(chunk)) return [];
    if (isObject(chunk.error)) throw geminiStreamError(chunk);
    this.sawEvent = true;
    const parts: StreamPart[] = [];
    if (!this.started) {
      this.started = true;
      this.responseId = stringOf(chunk.responseId) ?? '';
      parts.push({ type: 'start', id: this.responseId, model: stringOf(chunk.modelVersion) ?? '' });
    }
    const candidate = objectOf(arrayOf(chunk.candidates)[0]);
    for (const part of arrayOf(objectOf(candidate?.content)?.parts)) if (isObject(part)) parts.push(...this.part(part));
    const grounding = objectOf(candidate?.groundingMetadata);
    if (grounding && this.lastText) parts.push(...this.citations(grounding, this.lastText));
    const reason = stringOf(candidate?.finishReason) ?? (candidate ? undefined : stringOf(objectOf(chunk.promptFeedback)?.blockReason));
    if (reason) this.finishReason = reason;
    const usage = objectOf(chunk.usageMetadata);
    if (usage) parts.push({ type: 'usage', usage: usageOf(usage) });
    return parts;
  }

  end(): StreamPart[] {
    if (this.finished) return [];
    if (this.finishReason === undefined) throw truncatedStreamError(this.sawEvent);
    this.finished = true;
    const raw = this.finishReason;
    return [...this.close(), { type: 'finish', finishReason: finishReasonOf(raw, this.toolCalls > 0), rawFinishReason: raw }];
  }

  private part(part: JsonObject): StreamPart[] {
    const signature = stringOf(part.thoughtSignature) || undefined;
    const text = stringOf(part.text);
    const out: StreamPart[] = [];
    if (part.thought === true) {
      const index = this.ensure('reasoning', out);
      if (text) out.push({ type: 'reasoning_delta', index, text });
      if (signature) out.push({ type: 'reasoning_signature', index, signature });
      return out;
    }
    const call = objectOf(part.functionCall);
    if (call) {
      out.push(...this.close());
      // A call's signature: a reasoning block of its own, just before the call.
      if (signature) out.push(...this.signatureBlock(signature));
      const index = this.nextIndex++;
      const id = stringOf(call.id) || this.callId();
      this.toolCalls++;
      out.push(
        { type: 'tool_call_start', index, id, name: stringOf(call.name) ?? '' },
        { type: 'tool_call_delta', index, argumentsDelta: JSON.stringify(objectOf(call.args) ?? {}) },
        { type: 'tool_call_end', index },
      );
      return out;
    }
    if (text) {
      const index = this.ensure('text', out);
      out.push({ type: 'text_delta', index, text });
      if (this.lastText?.index === index) this.lastText.text += text;
    }
    if (signature) {
      // A text part's signature (Gemini signs the answer's last part): after the text block, so
      // the text stays one block; alone when there is no text block (an empty signed part).
      if (this.open?.kind === 'text') this.deferredSignature = signature;
      else out.push(...this.close(), ...this.signatureBlock(signature));
    }
    return out;
  }

  private signatureBlock(signature: string): StreamPart[] {
    const index = this.nextIndex++;
    return [{ type: 'reasoning_start', index }, { type: 'reasoning_signature', index, signature }, { type: 'reasoning_end', index }];
  }

  /** The open block of `kind` (closing another one first), its index. */
  private ensure(kind: OpenBlock['kind'], out: StreamPart[]): number {
    if (this.open?.kind === kind) return this.open.index;
    out.push(...this.close());
    const index = this.nextIndex++;
    this.open = { kind, index };
    out.push(kind === 'text' ? { type: 'text_start', index } : { type: 'reasoning_start', index });
    if (kind === 'text') this.lastText = { index, text: '' };
    return index;
  }

  private close(): StreamPart[] {
    const open = this.open;
    if (!open) return [];
    this.open = undefined;
    if (open.kind === 'reasoning') return [{ type: 'reasoning_end', index: open.index }];
    const signature = this.deferredSignature;
    this.deferredSignature = undefined;
    return [{ type: 'text_end', index: open.index }, ...(signature !== undefined ? this.signatureBlock(signature) : [])];
  }

  /** Grounding metadata is repeated on later chunks: each citation is sent once. Only while its text block is open. */
  private citations(grounding: JsonObject, text: { index: number; text: string }): StreamPart[] {
    if (this.open?.index !== text.index) return [];
    const parts: StreamPart[] = [];
    for (const citation of groundingCitations(grounding, text.text)) {
      const key = JSON.stringify(citation);
      if (this.cited.has(key)) continue;
      this.cited.add(key);
      parts.push({ type: 'citation', index: text.index, citation });
    }
    return parts;
  }

  /** Gemini API calls carry no id: one derived from the response id and the call's position. */
  private callId(): string {
    return `call_${createHash('sha256').update(`${this.responseId}:${this.toolCalls}`).digest('hex').slice(0, 24)}`;
  }
}
