// Renders an AnswerPlan in Gemini's shapes: one GenerateContentResponse (generateContent), or
// the chunks of streamGenerateContent — thought parts (when includeThoughts), text parts, the
// function calls in one chunk — ending with a chunk that carries finishReason, the grounding
// metadata of a search answer and the full usageMetadata (earlier chunks carry only the prompt
// side, as Gemini's do). A thinking model signs its answer: the first function call, or an
// empty last text part, carries a thoughtSignature (HMAC of the call / text, signatures.ts).
import { signThinking } from '../../signatures.js';
import type { AnswerPlan, PlannedFinish } from '../../script.js';
import type { ParsedGeminiRequest } from './request.js';

const finishReasons: Record<PlannedFinish, string> = { end: 'STOP', stop_sequence: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP' };

export function callSignature(secret: string, name: string, args: string): string {
  return signThinking(secret, `gemini-call:${name}:${args}`);
}

export function responseIdOf(seed: string): string {
  return Buffer.from(seed.slice(0, 32), 'hex').toString('base64url');
}

function usageMetadata(parsed: ParsedGeminiRequest, plan: AnswerPlan | undefined, cached: number): Record<string, unknown> {
  const usage: Record<string, unknown> = { promptTokenCount: parsed.promptTokens };
  if (cached > 0) usage.cachedContentTokenCount = cached;
  if (plan) {
    usage.candidatesTokenCount = plan.outputTokens - plan.reasoningTokens;
    if (plan.reasoningTokens > 0) usage.thoughtsTokenCount = plan.reasoningTokens;
  }
  usage.totalTokenCount = parsed.promptTokens + (plan?.outputTokens ?? 0);
  usage.promptTokensDetails = [{ modality: 'TEXT', tokenCount: parsed.promptTokens }];
  if (cached > 0) usage.cacheTokensDetails = [{ modality: 'TEXT', tokenCount: cached }];
  return usage;
}

function groundingMetadata(parsed: ParsedGeminiRequest, plan: AnswerPlan): Record<string, unknown> | undefined {
  if (plan.sources.length === 0 || !plan.text) return undefined;
  const text = plan.text.text;
  const leadEnd = text.indexOf('": ');
  const segment = leadEnd > 0 ? text.slice(0, leadEnd + 2) : text;
  return {
    webSearchQueries: [parsed.prompt.userText.slice(0, 80)],
    groundingChunks: plan.sources.map((source) => ({ web: { uri: source.url, title: source.title } })),
    groundingSupports: [{ segment: { startIndex: 0, endIndex: Buffer.byteLength(segment, 'utf8'), text: segment }, groundingChunkIndices: plan.sources.map((_, index) => index) }],
    searchEntryPoint: { renderedContent: '<div class="sim-search">simulated</div>' },
  };
}

function callParts(plan: AnswerPlan, signed: boolean, secret: string): Record<string, unknown>[] {
  return plan.toolCalls.map((call, index) => ({
    functionCall: { name: call.name, args: JSON.parse(call.arguments) as unknown },
    ...(signed && index === 0 ? { thoughtSignature: callSignature(secret, call.name, JSON.stringify(JSON.parse(call.arguments))) } : {}),
  }));
}

export function renderResponse(parsed: ParsedGeminiRequest, plan: AnswerPlan, cached: number, seed: string, secret: string, withUsage: boolean): Record<string, unknown> {
  const parts: Record<string, unknown>[] = [];
  if (plan.reasoning && parsed.includeThoughts) parts.push({ text: plan.reasoning.text, thought: true });
  if (plan.text) parts.push({ text: plan.text.text, ...(parsed.thinks ? { thoughtSignature: signThinking(secret, `gemini-text:${plan.text.text}`) } : {}) });
  parts.push(...callParts(plan, parsed.thinks, secret));
  const grounding = groundingMetadata(parsed, plan);
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: finishReasons[plan.finish], index: 0, ...(grounding ? { groundingMetadata: grounding } : {}) }],
    ...(withUsage ? { usageMetadata: usageMetadata(parsed, plan, cached) } : {}),
    modelVersion: parsed.model,
    responseId: responseIdOf(seed),
  };
}

/** The SSE frames of a stream, and where a mid-stream fault cuts it. */
export function renderChunks(parsed: ParsedGeminiRequest, plan: AnswerPlan, cached: number, seed: string, secret: string, withUsage: boolean): { chunks: Record<string, unknown>[]; faultAt: number } {
  const responseId = responseIdOf(seed);
  const chunk = (parts: Record<string, unknown>[], extra: Record<string, unknown> = {}, usage?: Record<string, unknown>) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
    ...(usage && withUsage ? { usageMetadata: usage } : {}),
    modelVersion: parsed.model,
    responseId,
  });
  const promptSide = usageMetadata(parsed, undefined, cached);
  const chunks: Record<string, unknown>[] = [];
  if (plan.reasoning && parsed.includeThoughts) for (const piece of plan.reasoning.deltas) chunks.push(chunk([{ text: piece, thought: true }], {}, promptSide));
  if (plan.text) for (const piece of plan.text.deltas) chunks.push(chunk([{ text: piece }], {}, promptSide));
  if (plan.toolCalls.length > 0) chunks.push(chunk(callParts(plan, parsed.thinks, secret), {}, promptSide));
  const faultAt = Math.max(1, Math.floor(chunks.length / 2));
  const grounding = groundingMetadata(parsed, plan);
  const lastParts = plan.text && parsed.thinks ? [{ text: '', thoughtSignature: signThinking(secret, `gemini-text:${plan.text.text}`) }] : [{ text: '' }];
  chunks.push(chunk(lastParts, { finishReason: finishReasons[plan.finish], ...(grounding ? { groundingMetadata: grounding } : {}) }, usageMetadata(parsed, plan, cached)));
  return { chunks, faultAt };
}
