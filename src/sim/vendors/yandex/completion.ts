// YandexGPT's completion (POST /foundationModels/v1/completion): the request read into the
// simulator's SimPrompt, the answer planned by script.ts, and rendered as Yandex does — one
// JSON document, or (completionOptions.stream) JSON lines whose alternative holds the WHOLE
// text so far, each with the usage so far. Hidden reasoning (reasoningOptions ENABLED_HIDDEN)
// costs 40 tokens, counted in completionTokens and completionTokensDetails.reasoningTokens.
import type { ServerResponse } from 'node:http';
import { promptFaults, planAnswer, type AnswerPlan, type SimFormat, type SimPrompt, type SimTool, type SimToolChoice } from '../../script.js';
import { defaultSigningSecret } from '../../signatures.js';
import { ClientWatch, writeStream } from '../../sse-writer.js';
import { countTokens, countToolTokens, messageOverheadTokens } from '../../tokens.js';
import { isRecord, type JsonObject } from '../../guards.js';
import { sendJsonAnswer } from '../prefixed-wire.js';
import { YandexSimError, yandexErrorBody } from './errors.js';

const hiddenReasoningTokens = 40;
export const yandexModelVersion = '23.10.2024';

const finalStatuses: Record<AnswerPlan['finish'], string> = {
  end: 'ALTERNATIVE_STATUS_FINAL',
  stop_sequence: 'ALTERNATIVE_STATUS_FINAL',
  length: 'ALTERNATIVE_STATUS_TRUNCATED_FINAL',
  tool_calls: 'ALTERNATIVE_STATUS_TOOL_CALLS',
};

interface ReadCompletion {
  readonly prompt: SimPrompt;
  readonly inputTokens: number;
  readonly stream: boolean;
}

function readCompletion(body: unknown, seed: string): ReadCompletion {
  if (!isRecord(body)) throw new YandexSimError(400, 'request body must be a JSON object');
  if (typeof body.modelUri !== 'string' || !/^gpt:\/\/[^/]+\/.+/.test(body.modelUri)) throw new YandexSimError(400, 'modelUri: expected gpt://<folder_id>/<model>');
  const options = isRecord(body.completionOptions) ? body.completionOptions : {};
  if (options.maxTokens !== undefined && (typeof options.maxTokens !== 'string' || !/^\d+$/.test(options.maxTokens))) {
    throw new YandexSimError(400, 'completionOptions.maxTokens: expected an int64 as a string');
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw new YandexSimError(400, 'messages: at least one message is required');
  let inputTokens = 0;
  const instructions: string[] = [];
  let userText = '';
  let toolResults: string[] | null = null;
  let lastRole = '';
  body.messages.forEach((item: unknown, index) => {
    if (!isRecord(item) || !['system', 'user', 'assistant'].includes(item.role as string)) throw new YandexSimError(400, `messages[${index}].role: expected system, user or assistant`);
    inputTokens += messageOverheadTokens;
    lastRole = item.role as string;
    toolResults = null;
    if (typeof item.text === 'string') {
      inputTokens += countTokens(item.text);
      if (item.role === 'system') instructions.push(item.text);
      if (item.role === 'user') userText = item.text;
    } else if (isRecord(item.toolResultList)) {
      const results = (Array.isArray(item.toolResultList.toolResults) ? item.toolResultList.toolResults : []).map((result: unknown) => {
        const content = isRecord(result) && isRecord(result.functionResult) && typeof result.functionResult.content === 'string' ? result.functionResult.content : '';
        return content;
      });
      inputTokens += results.reduce((sum, text) => sum + countTokens(text), 0);
      toolResults = results;
    } else if (isRecord(item.toolCallList)) {
      inputTokens += countTokens(JSON.stringify(item.toolCallList));
    } else {
      throw new YandexSimError(400, `messages[${index}]: one of text, toolCallList or toolResultList is required`);
    }
  });
  const tools: SimTool[] = (Array.isArray(body.tools) ? body.tools : []).flatMap((tool: unknown) => {
    const fn = isRecord(tool) && isRecord(tool.function) ? tool.function : undefined;
    if (!fn || typeof fn.name !== 'string') return [];
    inputTokens += countToolTokens(fn.name, typeof fn.description === 'string' ? fn.description : undefined, fn.parameters);
    return [{ name: fn.name, schema: fn.parameters }];
  });
  const reasoning = isRecord(options.reasoningOptions) && options.reasoningOptions.mode === 'ENABLED_HIDDEN';
  const prompt: SimPrompt = {
    userText,
    instructions: instructions.join('\n'),
    images: 0,
    toolResults,
    endsWithUser: lastRole === 'user',
    tools,
    toolChoice: toolChoiceOf(body.toolChoice),
    parallelToolCalls: body.parallelToolCalls !== false,
    maxTokens: typeof options.maxTokens === 'string' ? Number(options.maxTokens) : undefined,
    stop: [],
    reasoningTokens: reasoning ? hiddenReasoningTokens : 0,
    canRedact: false,
    search: false,
    seed,
    format: formatOf(body),
  };
  return { prompt, inputTokens, stream: options.stream === true };
}

function toolChoiceOf(value: unknown): SimToolChoice {
  if (!isRecord(value)) return { type: 'auto' };
  if (typeof value.functionName === 'string') return { type: 'tool', name: value.functionName };
  return value.mode === 'NONE' ? { type: 'none' } : value.mode === 'REQUIRED' ? { type: 'required' } : { type: 'auto' };
}

function formatOf(body: JsonObject): SimFormat | undefined {
  if (isRecord(body.jsonSchema)) return { type: 'json_schema', schema: body.jsonSchema.schema };
  return body.jsonObject === true ? { type: 'json_object' } : undefined;
}

function usageOf(inputTokens: number, completionTokens: number, reasoningTokens: number): JsonObject {
  return {
    inputTextTokens: String(inputTokens),
    completionTokens: String(completionTokens),
    totalTokens: String(inputTokens + completionTokens),
    ...(reasoningTokens > 0 ? { completionTokensDetails: { reasoningTokens: String(reasoningTokens) } } : {}),
  };
}

function finalResult(plan: AnswerPlan, inputTokens: number): JsonObject {
  const message =
    plan.toolCalls.length > 0
      ? { role: 'assistant', toolCallList: { toolCalls: plan.toolCalls.map((call) => ({ functionCall: { name: call.name, arguments: JSON.parse(call.arguments) as unknown } })) } }
      : { role: 'assistant', text: plan.text?.text ?? '' };
  return {
    alternatives: [{ message, status: finalStatuses[plan.finish] }],
    usage: usageOf(inputTokens, plan.outputTokens, plan.reasoningTokens),
    modelVersion: yandexModelVersion,
  };
}

/** The lines of a streamed answer: the text growing delta by delta, then the final alternative. */
function streamLines(plan: AnswerPlan, inputTokens: number): string[] {
  const lines: string[] = [];
  let text = '';
  for (const delta of plan.text?.deltas ?? []) {
    text += delta;
    const partial = {
      alternatives: [{ message: { role: 'assistant', text }, status: 'ALTERNATIVE_STATUS_PARTIAL' }],
      usage: usageOf(inputTokens, plan.reasoningTokens + countTokens(text), plan.reasoningTokens),
      modelVersion: yandexModelVersion,
    };
    lines.push(`${JSON.stringify({ result: partial })}\n`);
  }
  lines.push(`${JSON.stringify({ result: finalResult(plan, inputTokens) })}\n`);
  return lines;
}

export async function handleCompletion(response: ServerResponse, body: unknown, seed: string): Promise<void> {
  const { prompt, inputTokens, stream } = readCompletion(body, seed);
  const faults = promptFaults(prompt);
  const watch = new ClientWatch(response);
  if (faults.ttfbMs > 0) await watch.sleep(faults.ttfbMs);
  if (faults.status !== undefined) throw new YandexSimError(faults.status, faults.status === 429 ? 'ai.textGenerationCompletionSessionsCount.count gauge quota limit exceed' : 'Simulated failure');
  const plan = planAnswer(prompt, faults, defaultSigningSecret);
  if (!stream) {
    if (faults.drop) return void response.socket?.destroy();
    if (faults.failMid) throw new YandexSimError(500, 'Simulated internal error');
    return sendJsonAnswer(response, 200, { result: finalResult(plan, inputTokens) });
  }
  const frames = streamLines(plan, inputTokens);
  await writeStream(
    response,
    watch,
    { frames, faultAt: Math.floor(frames.length / 2), errorFrame: `${JSON.stringify(yandexErrorBody(500, 'Simulated internal error'))}\n` },
    { delayMs: faults.delayMs, fault: faults.failMid ? 'fail-mid' : faults.drop ? 'drop' : null },
    { 'content-type': 'application/json; charset=utf-8' },
  );
}
