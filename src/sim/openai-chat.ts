// POST /v1/chat/completions: renders an AnswerPlan in OpenAI's wire shapes (wire-formats.md
// §1): a chat.completion, or chat.completion.chunk events ending in `data: [DONE]`, with the
// usage chunk (`choices: []`) when stream_options.include_usage asks for it. Search models add
// Perplexity's top-level `citations` and `search_results`; the "compatible" flavor shows
// reasoning as DeepSeek's `reasoning_content`.
import { dropConnection, requestIdHeaders, sendJson, type SimContext } from './context.js';
import { faultError } from './errors.js';
import { cachedPromptTokens, parseChatRequest, type ParsedChatRequest } from './openai-request.js';
import { planAnswer, promptFaults, type AnswerPlan, type PlannedFinish } from './script.js';
import { writeStream, type PreparedStream } from './sse-writer.js';

const finishReasons: Record<PlannedFinish, string> = { end: 'stop', stop_sequence: 'stop', length: 'length', tool_calls: 'tool_calls' };

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

function usageOf(parsed: ParsedChatRequest, plan: AnswerPlan, cachedTokens: number): Usage {
  return {
    prompt_tokens: parsed.promptTokens,
    completion_tokens: plan.outputTokens,
    total_tokens: parsed.promptTokens + plan.outputTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    completion_tokens_details: { reasoning_tokens: plan.reasoningTokens },
  };
}

/** Perplexity-style search fields, shared by the response and every chunk. */
function searchFields(plan: AnswerPlan): Record<string, unknown> {
  if (plan.sources.length === 0) return {};
  return {
    citations: plan.sources.map((source) => source.url),
    search_results: plan.sources.map((source) => ({ title: source.title, url: source.url, date: source.date })),
  };
}

function responseId(seed: string): string {
  return `chatcmpl-${seed.slice(0, 24)}`;
}

export function renderCompletion(parsed: ParsedChatRequest, plan: AnswerPlan, usage: Usage, seed: string): unknown {
  const message: Record<string, unknown> = { role: 'assistant', content: plan.toolCalls.length > 0 ? (plan.text?.text ?? null) : (plan.text?.text ?? ''), refusal: null };
  if (parsed.showReasoning && plan.reasoning) message.reasoning_content = plan.reasoning.text;
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((call) => ({ id: `call_${call.idSuffix}`, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  }
  return {
    id: responseId(seed),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: parsed.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasons[plan.finish] }],
    usage,
    system_fingerprint: 'fp_sim',
    ...searchFields(plan),
  };
}

export function renderChunks(parsed: ParsedChatRequest, plan: AnswerPlan, usage: Usage | null, usageInChoice: boolean, seed: string): PreparedStream {
  // Every chunk shares its envelope; only the choice differs, so the envelope is serialized once.
  const search = searchFields(plan);
  const head = `data: {"id":"${responseId(seed)}","object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},"model":${JSON.stringify(parsed.model)},"system_fingerprint":"fp_sim",`;
  const tail = `${plan.sources.length > 0 ? `,"citations":${JSON.stringify(search.citations)},"search_results":${JSON.stringify(search.search_results)}` : ''}}\n\n`;
  const nullUsage = parsed.includeUsage ? ',"usage":null' : '';
  const chunk = (delta: unknown, finish: string | null = null, chunkUsage = nullUsage) =>
    `${head}"choices":[{"index":0,"delta":${JSON.stringify(delta)},"logprobs":null,"finish_reason":${finish === null ? 'null' : `"${finish}"`}}]${chunkUsage}${tail}`;

  const frames: string[] = [chunk({ role: 'assistant', content: '' })];
  if (parsed.showReasoning && plan.reasoning) for (const delta of plan.reasoning.deltas) frames.push(chunk({ reasoning_content: delta }));
  if (plan.text) for (const delta of plan.text.deltas) frames.push(chunk({ content: delta }));
  plan.toolCalls.forEach((call, index) => {
    frames.push(chunk({ tool_calls: [{ index, id: `call_${call.idSuffix}`, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const fragment of call.fragments) frames.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
  });
  const deltaFrames = frames.length - 1;
  const finish = finishReasons[plan.finish];
  if (usage && usageInChoice) {
    // A quirk of some vendors: usage rides on the finish chunk (choices not empty), no usage chunk.
    frames.push(chunk({}, finish, `,"usage":${JSON.stringify(usage)}`));
  } else {
    frames.push(chunk({}, finish));
    if (usage) frames.push(`${head}"choices":[],"usage":${JSON.stringify(usage)}${tail}`);
  }
  frames.push('data: [DONE]\n\n');
  const errorFrame = `data: ${JSON.stringify({ error: { message: 'Simulated failure in the middle of the stream', type: 'server_error', param: null, code: 'sim_fail_mid' } })}\n\n`;
  return { frames, faultAt: 1 + Math.floor(deltaFrames / 2), errorFrame };
}

export async function handleChatCompletions(context: SimContext): Promise<void> {
  const flavor = context.request.headers['x-sim-flavor'];
  const parsed = parseChatRequest(context.body, context.seed, typeof flavor === 'string' ? flavor : undefined);
  const faults = promptFaults(parsed.prompt);
  if (faults.ttfbMs > 0) await context.watch.sleep(faults.ttfbMs);
  if (context.watch.closed) return;
  if (faults.status !== undefined) throw faultError(faults.status, faults.retryAfterSeconds);
  const plan = planAnswer(parsed.prompt, faults, context.signingSecret);
  const usage = usageOf(parsed, plan, cachedPromptTokens(context.cache, parsed));
  // Billed once answered, whatever reaches the client (a cut stream, a stream without usage).
  context.usage.record('completions', parsed.model, { inputTokens: usage.prompt_tokens, cachedInputTokens: usage.prompt_tokens_details.cached_tokens, outputTokens: usage.completion_tokens });

  if (!parsed.stream) {
    if (faults.drop) return dropConnection(context);
    if (faults.failMid) throw faultError(500);
    return sendJson(context, 200, renderCompletion(parsed, plan, usage, context.seed));
  }
  const streamUsage = faults.noUsage ? null : faults.usageInChoice || parsed.includeUsage ? usage : null;
  const prepared = renderChunks(parsed, plan, streamUsage, faults.usageInChoice, context.seed);
  const fault = faults.drop ? 'drop' : faults.failMid ? 'fail-mid' : null;
  await writeStream(context.response, context.watch, prepared, { delayMs: faults.delayMs, fault }, requestIdHeaders(context.requestId));
}
