// POST /v1/messages and /v1/messages/count_tokens: renders an AnswerPlan in Anthropic's wire
// shapes (wire-formats.md §2): a message, or the named event sequence message_start →
// content blocks (thinking + signature_delta, redacted_thinking, text + citations_delta,
// tool_use + input_json_delta) → message_delta (stop_reason, cumulative output_tokens) →
// message_stop. Usage reports cache reads and writes apart from input_tokens, as Anthropic does.
import { cacheUsage, type CacheUsage } from './anthropic-cache.js';
import { parseMessagesRequest, type ParsedMessagesRequest } from './anthropic-request.js';
import { dropConnection, requestIdHeaders, sendJson, type SimContext } from './context.js';
import { faultError } from './errors.js';
import { planAnswer, promptFaults, type AnswerPlan, type PlannedFinish, type Source } from './script.js';
import { signThinking } from './signatures.js';
import { writeStream, type PreparedStream } from './sse-writer.js';

const stopReasons: Record<PlannedFinish, string> = { end: 'end_turn', stop_sequence: 'stop_sequence', length: 'max_tokens', tool_calls: 'tool_use' };

function citationOf(source: Source, index: number): Record<string, unknown> {
  return {
    type: 'web_search_result_location',
    url: source.url,
    title: source.title,
    cited_text: source.snippet,
    encrypted_index: Buffer.from(`sim-index:${index}`).toString('base64'),
  };
}

function messageId(seed: string): string {
  return `msg_${seed.slice(0, 24)}`;
}

function usageOf(parsed: ParsedMessagesRequest, cache: CacheUsage, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: parsed.totalTokens - cache.read - cache.creation,
    cache_creation_input_tokens: cache.creation,
    cache_read_input_tokens: cache.read,
    cache_creation: { ephemeral_5m_input_tokens: cache.creation, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

export function renderMessage(parsed: ParsedMessagesRequest, plan: AnswerPlan, cache: CacheUsage, seed: string, secret: string): unknown {
  const content: Record<string, unknown>[] = [];
  if (plan.reasoning) content.push({ type: 'thinking', thinking: plan.reasoning.text, signature: signThinking(secret, plan.reasoning.text) });
  if (plan.redactedData) content.push({ type: 'redacted_thinking', data: plan.redactedData });
  if (plan.text) content.push({ type: 'text', text: plan.text.text, citations: plan.sources.length > 0 ? plan.sources.map(citationOf) : null });
  for (const call of plan.toolCalls) content.push({ type: 'tool_use', id: `toolu_${call.idSuffix}`, name: call.name, input: JSON.parse(call.arguments) });
  return {
    id: messageId(seed),
    type: 'message',
    role: 'assistant',
    model: parsed.model,
    content,
    stop_reason: stopReasons[plan.finish],
    stop_sequence: plan.stopSequence,
    usage: usageOf(parsed, cache, plan.outputTokens),
  };
}

const event = (data: Record<string, unknown> & { type: string }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

export function renderEvents(parsed: ParsedMessagesRequest, plan: AnswerPlan, cache: CacheUsage, withUsage: boolean, seed: string, secret: string): PreparedStream {
  const startUsage = withUsage
    ? { input_tokens: parsed.totalTokens - cache.read - cache.creation, cache_creation_input_tokens: cache.creation, cache_read_input_tokens: cache.read, output_tokens: 1 }
    : { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
  const frames: string[] = [
    event({
      type: 'message_start',
      message: { id: messageId(seed), type: 'message', role: 'assistant', model: parsed.model, content: [], stop_reason: null, stop_sequence: null, usage: startUsage },
    }),
    event({ type: 'ping' }),
  ];
  const deltaAt: number[] = [];
  const delta = (index: number, body: Record<string, unknown>) => {
    deltaAt.push(frames.length);
    frames.push(event({ type: 'content_block_delta', index, delta: body }));
  };
  let index = 0;
  if (plan.reasoning) {
    frames.push(event({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    for (const piece of plan.reasoning.deltas) delta(index, { type: 'thinking_delta', thinking: piece });
    frames.push(event({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: signThinking(secret, plan.reasoning.text) } }));
    frames.push(event({ type: 'content_block_stop', index: index++ }));
  }
  if (plan.redactedData) {
    frames.push(event({ type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: plan.redactedData } }));
    frames.push(event({ type: 'content_block_stop', index: index++ }));
  }
  if (plan.text) {
    frames.push(event({ type: 'content_block_start', index, content_block: { type: 'text', text: '', citations: null } }));
    plan.sources.forEach((source, n) => frames.push(event({ type: 'content_block_delta', index, delta: { type: 'citations_delta', citation: citationOf(source, n) } })));
    for (const piece of plan.text.deltas) delta(index, { type: 'text_delta', text: piece });
    frames.push(event({ type: 'content_block_stop', index: index++ }));
  }
  for (const call of plan.toolCalls) {
    frames.push(event({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: `toolu_${call.idSuffix}`, name: call.name, input: {} } }));
    for (const fragment of call.fragments) delta(index, { type: 'input_json_delta', partial_json: fragment });
    frames.push(event({ type: 'content_block_stop', index: index++ }));
  }
  const finish = { stop_reason: stopReasons[plan.finish], stop_sequence: plan.stopSequence };
  frames.push(event(withUsage ? { type: 'message_delta', delta: finish, usage: { output_tokens: plan.outputTokens } } : { type: 'message_delta', delta: finish }));
  frames.push(event({ type: 'message_stop' }));
  const half = Math.floor(deltaAt.length / 2);
  return {
    frames,
    faultAt: half > 0 ? deltaAt[half - 1]! + 1 : 1,
    errorFrame: event({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded (simulated failure in the middle of the stream)' } }),
  };
}

export async function handleMessages(context: SimContext): Promise<void> {
  const parsed = parseMessagesRequest(context.body, context.seed, context.signingSecret, { countOnly: false });
  const faults = promptFaults(parsed.prompt);
  if (faults.ttfbMs > 0) await context.watch.sleep(faults.ttfbMs);
  if (context.watch.closed) return;
  if (faults.status !== undefined) throw faultError(faults.status, faults.retryAfterSeconds);
  const plan = planAnswer(parsed.prompt, faults, context.signingSecret);
  const cache = cacheUsage(context.cache, parsed);
  // Billed once answered, whatever reaches the client; input as OpenAI's usage API counts it (cache reads and writes included).
  context.usage.record('completions', parsed.model, { inputTokens: parsed.totalTokens, cachedInputTokens: cache.read, outputTokens: plan.outputTokens });

  if (!parsed.stream) {
    if (faults.drop) return dropConnection(context);
    if (faults.failMid) throw faultError(500);
    return sendJson(context, 200, renderMessage(parsed, plan, cache, context.seed, context.signingSecret));
  }
  const prepared = renderEvents(parsed, plan, cache, !faults.noUsage, context.seed, context.signingSecret);
  const fault = faults.drop ? 'drop' : faults.failMid ? 'fail-mid' : null;
  await writeStream(context.response, context.watch, prepared, { delayMs: faults.delayMs, fault }, requestIdHeaders(context.requestId));
}

/** count_tokens: every input token, as usage would count them (cached or not); no cache effect. */
export function handleCountTokens(context: SimContext): void {
  const parsed = parseMessagesRequest(context.body, context.seed, context.signingSecret, { countOnly: true });
  sendJson(context, 200, { input_tokens: parsed.totalTokens });
}
