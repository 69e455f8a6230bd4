// GigaChat's SSE stream → StreamParts, through the Chat Completions parser: each chunk is
// rewritten into the Chat Completions shape it almost has, and the rest is openai/stream.ts.
// What is rewritten:
//   - `delta.function_call: {name, arguments}` (arguments a JSON object, the call whole in one
//     chunk) → one `delta.tool_calls` entry with the arguments as text; GigaChat gives calls
//     no id, so one is made per stream (a client answers the call by it; the request side
//     finds the function's name back from it);
//   - finish_reason "function_call" is read as tool_calls by the shared finish mapping;
//   - a call of the structured-output function (request.ts) is the answer: its arguments
//     become the text, its finish a stop;
//   - usage: `prompt_tokens` are the billable input tokens; `precached_prompt_tokens`, those
//     GigaChat served from its context cache, are not billed by Sber and are left out (neither
//     input nor cached input: the gateway charges what the vendor charges).
import { randomUUID } from 'node:crypto';
import type { StreamPart } from '../../model/chat.js';
import type { SseEvent, UpstreamStreamParser } from '../types.js';
import { ChatCompletionsStreamParser } from '../openai/stream.js';
import { arrayOf, countOf, isObject, objectOf, stringOf, type JsonObject } from '../shared/json.js';

export class GigachatStreamParser implements UpstreamStreamParser {
  /** `outputName`: the structured-output function of this request, when it asked for a format. */
  constructor(private readonly outputName?: string) {}

  private readonly inner = new ChatCompletionsStreamParser({ citationsOf: () => [] });
  /** The id of this answer's function call (one at most: GigaChat makes no parallel calls). */
  private readonly callId = `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

  push(event: SseEvent): StreamPart[] {
    const data = event.data.trim();
    if (data === '' || data.startsWith('[DONE]')) return this.inner.push(event);
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return this.inner.push(event); // the inner parser reports it
    }
    if (!isObject(chunk) || chunk.error !== undefined) return this.inner.push(event);
    return this.inner.push({ data: JSON.stringify(asChatCompletionsChunk(chunk, this.callId, this.outputName)) });
  }

  end(): StreamPart[] {
    return this.inner.end();
  }
}

export function asChatCompletionsChunk(chunk: JsonObject, callId: string, outputName?: string): JsonObject {
  const choices = arrayOf(chunk.choices).map((item) => {
    const choice = objectOf(item);
    const delta = objectOf(choice?.delta);
    const call = objectOf(delta?.function_call);
    if (!choice || !delta || !call) return item;
    const { function_call: _call, ...rest } = delta;
    const args = call.arguments === undefined ? '' : typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    if (outputName !== undefined && call.name === outputName) {
      const finish = choice.finish_reason === 'function_call' ? { finish_reason: 'stop' } : {};
      return { ...choice, ...finish, delta: { ...rest, content: `${stringOf(rest.content) ?? ''}${args}` } };
    }
    return { ...choice, delta: { ...rest, tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: call.name, arguments: args } }] } };
  });
  const usage = objectOf(chunk.usage);
  return { ...chunk, choices, ...(usage ? { usage: usageOf(usage) } : {}) };
}

export function usageOf(usage: JsonObject): JsonObject {
  return { prompt_tokens: countOf(usage.prompt_tokens), completion_tokens: countOf(usage.completion_tokens) };
}
