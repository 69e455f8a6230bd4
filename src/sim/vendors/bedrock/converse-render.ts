// Renders an AnswerPlan (script.ts) in Bedrock's shapes: the Converse JSON answer, or the
// ConverseStream event stream — binary `application/vnd.amazon.eventstream` messages encoded
// with the SDK's own codec, each with `:event-type`, `:content-type` and `:message-type`
// headers and a JSON payload padded with a `p` field, as Bedrock pads its events:
//   messageStart → contentBlockDelta(reasoningContent.text …, .signature) → contentBlockStop
//   → [contentBlockDelta(reasoningContent.redactedContent) → contentBlockStop]
//   → contentBlockDelta(text …) → contentBlockStop
//   → contentBlockStart(toolUse) → contentBlockDelta(toolUse.input …) → contentBlockStop …
//   → messageStop(stopReason) → metadata(usage, metrics)
import { awsEventCodec, utf8Bytes } from '../../../util/aws-event-codec.js';
import type { AnswerPlan, PlannedFinish } from '../../script.js';
import { signThinking, defaultSigningSecret } from '../../signatures.js';
import type { PreparedStream } from '../../sse-writer.js';
import type { CacheUsage } from './converse-cache.js';
import type { ParsedConverseRequest } from './converse-request.js';

const stopReasons: Record<PlannedFinish, string> = { end: 'end_turn', stop_sequence: 'stop_sequence', length: 'max_tokens', tool_calls: 'tool_use' };

/** A fixed latency: the answers are deterministic, their metrics too. */
const latencyMs = 120;

export function usageOf(parsed: ParsedConverseRequest, cache: CacheUsage, outputTokens: number): Record<string, number> {
  const inputTokens = parsed.totalTokens - cache.read - cache.write;
  return {
    inputTokens,
    outputTokens,
    totalTokens: parsed.totalTokens + outputTokens,
    // Reported when the request had cache points, zeros included, as Bedrock does.
    ...(parsed.segments.some((segment) => segment.breakpoint) ? { cacheReadInputTokens: cache.read, cacheWriteInputTokens: cache.write } : {}),
  };
}

function toolUseId(idSuffix: string): string {
  return `tooluse_${idSuffix}`;
}

function stopFields(parsed: ParsedConverseRequest, plan: AnswerPlan): Record<string, unknown> {
  const fields: Record<string, unknown> = { stopReason: stopReasons[plan.finish] };
  if (parsed.wantsStopSequence) fields.additionalModelResponseFields = { stop_sequence: plan.stopSequence };
  return fields;
}

export function renderConverse(parsed: ParsedConverseRequest, plan: AnswerPlan, cache: CacheUsage): unknown {
  const content: Record<string, unknown>[] = [];
  if (plan.reasoning) content.push({ reasoningContent: { reasoningText: { text: plan.reasoning.text, signature: signThinking(defaultSigningSecret, plan.reasoning.text) } } });
  if (plan.redactedData) content.push({ reasoningContent: { redactedContent: plan.redactedData } });
  if (plan.text) content.push({ text: plan.text.text });
  for (const call of plan.toolCalls) content.push({ toolUse: { toolUseId: toolUseId(call.idSuffix), name: call.name, input: JSON.parse(call.arguments) } });
  return {
    output: { message: { role: 'assistant', content } },
    ...stopFields(parsed, plan),
    usage: usageOf(parsed, cache, plan.outputTokens),
    metrics: { latencyMs },
  };
}

/** Bedrock pads each event's payload with a `p` of varying length (against size side channels). */
function padding(serial: number): string {
  return 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0'.slice(0, 1 + (serial * 7) % 50);
}

export function eventMessage(type: string, payload: Record<string, unknown>): Uint8Array {
  return awsEventCodec().encode({
    headers: {
      ':event-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: utf8Bytes(JSON.stringify(payload)),
  });
}

export function exceptionMessage(type: string, message: string): Uint8Array {
  return awsEventCodec().encode({
    headers: {
      ':exception-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: utf8Bytes(JSON.stringify({ message })),
  });
}

export function renderConverseStream(parsed: ParsedConverseRequest, plan: AnswerPlan, cache: CacheUsage, withUsage: boolean): PreparedStream {
  const frames: Uint8Array[] = [];
  const deltaAt: number[] = [];
  const event = (type: string, payload: Record<string, unknown>) => frames.push(eventMessage(type, { ...payload, p: padding(frames.length) }));
  const delta = (contentBlockIndex: number, body: Record<string, unknown>) => {
    deltaAt.push(frames.length);
    event('contentBlockDelta', { contentBlockIndex, delta: body });
  };
  event('messageStart', { role: 'assistant' });
  let index = 0;
  if (plan.reasoning) {
    for (const piece of plan.reasoning.deltas) delta(index, { reasoningContent: { text: piece } });
    delta(index, { reasoningContent: { signature: signThinking(defaultSigningSecret, plan.reasoning.text) } });
    event('contentBlockStop', { contentBlockIndex: index++ });
  }
  if (plan.redactedData) {
    delta(index, { reasoningContent: { redactedContent: plan.redactedData } });
    event('contentBlockStop', { contentBlockIndex: index++ });
  }
  if (plan.text) {
    for (const piece of plan.text.deltas) delta(index, { text: piece });
    event('contentBlockStop', { contentBlockIndex: index++ });
  }
  for (const call of plan.toolCalls) {
    event('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: toolUseId(call.idSuffix), name: call.name } } });
    for (const fragment of call.fragments) delta(index, { toolUse: { input: fragment } });
    event('contentBlockStop', { contentBlockIndex: index++ });
  }
  event('messageStop', stopFields(parsed, plan));
  if (withUsage) event('metadata', { usage: usageOf(parsed, cache, plan.outputTokens), metrics: { latencyMs } });
  const half = Math.floor(deltaAt.length / 2);
  return {
    frames,
    faultAt: half > 0 ? deltaAt[half - 1]! + 1 : 1,
    errorFrame: exceptionMessage('internalServerException', 'The system encountered an unexpected error during processing. Try your request again. (simulated failure in the middle of the stream)'),
  };
}
