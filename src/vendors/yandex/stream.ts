// The Foundation Models completion stream → StreamParts. The answer comes as JSON lines
// (framing 'ndjson'), each `{"result": {alternatives, usage, modelVersion}}`, and each line's
// alternative holds the WHOLE text generated so far, not the new part: the parser keeps what
// it has emitted and sends only the rest as a delta. A line whose text does not continue the
// previous one (never seen) sends what is beyond the length already emitted.
//
//   ALTERNATIVE_STATUS_PARTIAL          more to come
//   ALTERNATIVE_STATUS_FINAL            stop
//   ALTERNATIVE_STATUS_TRUNCATED_FINAL  length (maxTokens reached)
//   ALTERNATIVE_STATUS_CONTENT_FILTER   content_filter
//   ALTERNATIVE_STATUS_TOOL_CALLS       tool_calls: the message holds a `toolCallList`
//
// Usage rides on every line (token counts as strings); the last one wins. The finish part
// waits for the end of the body, so that the usage of the final line comes before it; a body
// that ends without a final status was cut. Yandex gives calls no id: one is made per call.
import { randomUUID } from 'node:crypto';
import type { FinishReason, StreamPart, Usage } from '../../model/chat.js';
import type { SseEvent, UpstreamStreamParser } from '../types.js';
import { arrayOf, isObject, objectOf, parseEventJson, stringOf, type JsonObject } from '../shared/json.js';
import { truncatedStreamError } from '../shared/upstream-errors.js';
import { yandexErrorFromStreamLine } from './errors.js';

const finishReasons: Readonly<Record<string, FinishReason>> = {
  ALTERNATIVE_STATUS_FINAL: 'stop',
  ALTERNATIVE_STATUS_TRUNCATED_FINAL: 'length',
  ALTERNATIVE_STATUS_CONTENT_FILTER: 'content_filter',
  ALTERNATIVE_STATUS_TOOL_CALLS: 'tool_calls',
};

export class YandexCompletionParser implements UpstreamStreamParser {
  private started = false;
  private sawLine = false;
  private emitted = '';
  private nextIndex = 0;
  private textIndex: number | undefined;
  private rawFinish: string | undefined;
  private finished = false;

  constructor(private readonly model: string) {}

  push(event: SseEvent): StreamPart[] {
    if (this.finished || this.rawFinish !== undefined) return [];
    const line = parseEventJson(event.data);
    const error = yandexErrorFromStreamLine(line);
    if (error) throw error;
    if (!isObject(line)) return [];
    // The REST gateway wraps each answer in `result`; an answer without it is read as is.
    const result = objectOf(line.result) ?? line;
    this.sawLine = true;
    const parts: StreamPart[] = [];
    if (!this.started) {
      this.started = true;
      parts.push({ type: 'start', id: '', model: this.model });
    }
    const alternative = objectOf(arrayOf(result.alternatives)[0]);
    const message = objectOf(alternative?.message);
    const text = stringOf(message?.text);
    if (text !== undefined) this.readText(text, parts);
    const status = stringOf(alternative?.status);
    if (status !== undefined && status !== 'ALTERNATIVE_STATUS_PARTIAL' && status !== 'ALTERNATIVE_STATUS_UNSPECIFIED') {
      this.closeText(parts);
      this.readToolCalls(objectOf(message?.toolCallList), parts);
      this.rawFinish = status;
    }
    const usage = objectOf(result.usage);
    if (usage) parts.push({ type: 'usage', usage: yandexUsageOf(usage) });
    return parts;
  }

  end(): StreamPart[] {
    if (this.finished) return [];
    if (this.rawFinish === undefined) throw truncatedStreamError(this.sawLine);
    this.finished = true;
    return [{ type: 'finish', finishReason: finishReasons[this.rawFinish] ?? 'stop', rawFinishReason: this.rawFinish }];
  }

  private readText(text: string, parts: StreamPart[]): void {
    const delta = text.startsWith(this.emitted) ? text.slice(this.emitted.length) : text.slice(Math.min(this.emitted.length, text.length));
    if (delta === '') return;
    if (this.textIndex === undefined) {
      this.textIndex = this.nextIndex++;
      parts.push({ type: 'text_start', index: this.textIndex });
    }
    parts.push({ type: 'text_delta', index: this.textIndex, text: delta });
    this.emitted = text.length >= this.emitted.length ? text : this.emitted;
  }

  private closeText(parts: StreamPart[]): void {
    if (this.textIndex !== undefined) parts.push({ type: 'text_end', index: this.textIndex });
  }

  private readToolCalls(list: JsonObject | undefined, parts: StreamPart[]): void {
    for (const item of arrayOf(list?.toolCalls)) {
      const call = objectOf(objectOf(item)?.functionCall);
      if (!call) continue;
      const index = this.nextIndex++;
      const args = call.arguments === undefined ? '{}' : typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
      parts.push({ type: 'tool_call_start', index, id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`, name: stringOf(call.name) ?? '' });
      parts.push({ type: 'tool_call_delta', index, argumentsDelta: args });
      parts.push({ type: 'tool_call_end', index });
    }
  }
}

/** Counts come as strings (int64 in JSON); reasoning is inside completionTokens. */
export function yandexUsageOf(usage: JsonObject): Usage {
  const details = objectOf(usage.completionTokensDetails);
  return {
    inputTokens: tokenCount(usage.inputTextTokens),
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    outputTokens: tokenCount(usage.completionTokens),
    reasoningTokens: tokenCount(details?.reasoningTokens ?? usage.reasoningTokens),
  };
}

function tokenCount(value: unknown): number {
  const count = typeof value === 'string' ? Number(value) : value;
  return typeof count === 'number' && Number.isSafeInteger(count) && count >= 0 ? count : 0;
}
