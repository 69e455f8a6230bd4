// GigaChat's chat (POST /api/v1/chat/completions): messages with roles system, user,
// assistant (a `function_call` with object arguments) and function (a tool's JSON answer);
// `functions` and `function_call` choose the tools; one call at a time (GigaChat makes no
// parallel calls). The answer is planned by script.ts and rendered as one JSON document or as
// SSE chunks ending in `data: [DONE]`, usage (with precached_prompt_tokens: 0) on the last chunk.
import type { ServerResponse } from 'node:http';
import { planAnswer, promptFaults, type AnswerPlan, type SimPrompt, type SimTool, type SimToolChoice } from '../../script.js';
import { defaultSigningSecret } from '../../signatures.js';
import { ClientWatch, writeStream } from '../../sse-writer.js';
import { countTokens, countToolTokens, messageOverheadTokens } from '../../tokens.js';
import { isRecord, type JsonObject } from '../../guards.js';
import { sendJsonAnswer } from '../prefixed-wire.js';
import { GigachatSimError } from './errors.js';

const roles = new Set(['system', 'user', 'assistant', 'function']);

function readChat(body: unknown, seed: string): { prompt: SimPrompt; inputTokens: number; stream: boolean; model: string } {
  if (!isRecord(body)) throw new GigachatSimError(400, 'request body must be a JSON object');
  if (typeof body.model !== 'string' || body.model === '') throw new GigachatSimError(400, 'model is required');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw new GigachatSimError(422, 'messages: at least one message is required');
  let inputTokens = 0;
  let userText = '';
  const instructions: string[] = [];
  let toolResults: string[] | null = null;
  let lastRole = '';
  body.messages.forEach((item: unknown, index) => {
    if (!isRecord(item) || !roles.has(item.role as string)) throw new GigachatSimError(422, `messages[${index}].role: expected system, user, assistant or function`);
    const content = typeof item.content === 'string' ? item.content : '';
    inputTokens += messageOverheadTokens + countTokens(content);
    if (item.role === 'function') {
      try {
        JSON.parse(content);
      } catch {
        throw new GigachatSimError(422, `messages[${index}].content: a function result must be valid JSON`);
      }
      toolResults = [...(lastRole === 'function' ? (toolResults ?? []) : []), content];
    } else toolResults = null;
    if (isRecord(item.function_call)) inputTokens += countTokens(JSON.stringify(item.function_call));
    if (item.role === 'system') instructions.push(content);
    if (item.role === 'user') userText = content;
    lastRole = item.role as string;
  });
  const tools: SimTool[] = (Array.isArray(body.functions) ? body.functions : []).flatMap((fn: unknown) => {
    if (!isRecord(fn) || typeof fn.name !== 'string') return [];
    inputTokens += countToolTokens(fn.name, typeof fn.description === 'string' ? fn.description : undefined, fn.parameters);
    return [{ name: fn.name, schema: fn.parameters }];
  });
  const prompt: SimPrompt = {
    userText,
    instructions: instructions.join('\n'),
    images: 0,
    toolResults,
    // A function's answer is the user side of the turn: the model then answers in words.
    endsWithUser: lastRole === 'user' || lastRole === 'function',
    tools,
    toolChoice: toolChoiceOf(body.function_call),
    parallelToolCalls: false,
    maxTokens: typeof body.max_tokens === 'number' ? body.max_tokens : undefined,
    stop: [],
    reasoningTokens: 0,
    canRedact: false,
    search: false,
    seed,
  };
  return { prompt, inputTokens, stream: body.stream === true, model: body.model };
}

function toolChoiceOf(value: unknown): SimToolChoice {
  if (isRecord(value) && typeof value.name === 'string') return { type: 'tool', name: value.name };
  return value === 'none' ? { type: 'none' } : { type: 'auto' };
}

function finishReasonOf(plan: AnswerPlan): string {
  if (plan.finish === 'tool_calls') return 'function_call';
  return plan.finish === 'length' ? 'length' : 'stop';
}

function usageOf(inputTokens: number, plan: AnswerPlan): JsonObject {
  return { prompt_tokens: inputTokens, completion_tokens: plan.outputTokens, total_tokens: inputTokens + plan.outputTokens, precached_prompt_tokens: 0 };
}

function callOf(plan: AnswerPlan): JsonObject | undefined {
  const call = plan.toolCalls[0];
  return call ? { name: call.name, arguments: JSON.parse(call.arguments) as unknown } : undefined;
}

/** The version GigaChat names in `model`: the model and its build. */
function modelVersion(model: string): string {
  return `${model}:2.0.28.2`;
}

function wholeAnswer(plan: AnswerPlan, inputTokens: number, model: string): JsonObject {
  const call = callOf(plan);
  return {
    choices: [{ message: { role: 'assistant', content: plan.text?.text ?? '', ...(call ? { function_call: call, functions_state_id: `sim-${plan.toolCalls[0]!.idSuffix}` } : {}) }, index: 0, finish_reason: finishReasonOf(plan) }],
    created: Math.floor(Date.now() / 1000),
    model: modelVersion(model),
    object: 'chat.completion',
    usage: usageOf(inputTokens, plan),
  };
}

function streamFrames(plan: AnswerPlan, inputTokens: number, model: string): string[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: JsonObject, extra: JsonObject = {}) =>
    `data: ${JSON.stringify({ choices: [{ delta, index: 0, ...extra }], created, model: modelVersion(model), object: 'chat.completion' })}\n\n`;
  const frames = (plan.text?.deltas ?? []).map((text) => chunk({ content: text, role: 'assistant' }));
  const call = callOf(plan);
  const last = call ? { content: '', role: 'assistant', function_call: call, functions_state_id: `sim-${plan.toolCalls[0]!.idSuffix}` } : { content: '' };
  const final = `data: ${JSON.stringify({ choices: [{ delta: last, index: 0, finish_reason: finishReasonOf(plan) }], created, model: modelVersion(model), object: 'chat.completion', usage: usageOf(inputTokens, plan) })}\n\n`;
  return [...frames, final, 'data: [DONE]\n\n'];
}

export async function handleGigachatChat(response: ServerResponse, body: unknown, seed: string): Promise<void> {
  const { prompt, inputTokens, stream, model } = readChat(body, seed);
  const faults = promptFaults(prompt);
  const watch = new ClientWatch(response);
  if (faults.ttfbMs > 0) await watch.sleep(faults.ttfbMs);
  if (faults.status !== undefined) throw new GigachatSimError(faults.status, faults.status === 429 ? 'Too Many Requests' : 'Simulated failure');
  const plan = planAnswer(prompt, faults, defaultSigningSecret);
  if (!stream) {
    if (faults.drop) return void response.socket?.destroy();
    if (faults.failMid) throw new GigachatSimError(500, 'Internal Server Error');
    return sendJsonAnswer(response, 200, wholeAnswer(plan, inputTokens, model));
  }
  const frames = streamFrames(plan, inputTokens, model);
  await writeStream(
    response,
    watch,
    { frames, faultAt: Math.floor(frames.length / 2), errorFrame: `data: ${JSON.stringify({ status: 500, message: 'Internal Server Error' })}\n\n` },
    { delayMs: faults.delayMs, fault: faults.failMid ? 'fail-mid' : faults.drop ? 'drop' : null },
    {},
  );
}
