// Which catalog model serves a chat request, and whether it can: the model named (or aliased),
// a chat or search model, allowed to the key (search needing its scope too), and able to take
// what the request asks (reasoning effort, output budget, images, tools). Refused with 422
// naming the field, before anything is held.
import type { ApiKey } from '../auth/api-keys.js';
import { assertScope } from '../auth/assert-scope.js';
import { assertModelAllowed } from '../auth/key-policy.js';
import type { Catalog, CatalogModel } from '../catalog/catalog.js';
import type { Dialect } from '../dialects/types.js';
import type { ChatRequest, ModelCapabilities, ReasoningEffort } from '../model/chat.js';
import { closestReasoningEffort } from '../model/reasoning.js';
import { invalid } from '../validation/zod-details.js';
import { chatAdapterFor } from '../vendors/registry.js';

/** Output cap for models that do not declare one. */
const defaultMaxOutputTokens = 4_096;

export function capabilitiesOf(model: CatalogModel): ModelCapabilities {
  const c = model.config.capabilities;
  return {
    reasoningEfforts: c.reasoning_efforts ?? [],
    canDisableReasoning: c.can_disable_reasoning ?? false,
    vision: c.vision ?? false,
    tools: c.tools ?? false,
    maxOutputTokens: c.max_output_tokens ?? defaultMaxOutputTokens,
    structuredOutputs: c.structured_outputs ?? false,
  };
}

export interface ResolvedChat {
  readonly model: CatalogModel;
  readonly capabilities: ModelCapabilities;
  /** The request fitted to the model: a hinted effort, and an output budget above the model's limit clamped to it. */
  readonly request: ChatRequest;
  /** The client's output budget when it was above the model's limit (request.maxOutputTokens then holds the limit). */
  readonly maxOutputTokensClampedFrom?: number;
}

/**
 * Resolves the model of a decoded request and checks it can serve this request for this key.
 * The request comes back fitted to the model (effort hint, output budget). `body` is the request
 * as sent, so that a refusal quotes what the client wrote rather than the decoded value.
 */
export function resolveChatModel(
  catalog: Catalog,
  dialect: Dialect,
  decoded: ChatRequest,
  apiKey: ApiKey,
  body?: unknown,
): ResolvedChat {
  const model = chatModelOf(catalog, decoded);
  if (model.type === 'search') assertScope(apiKey, 'search');
  assertModelAllowed(apiKey, model.id, decoded.model);
  return fitToModel(dialect, decoded, model, body);
}

/**
 * The same without a key: a background response when the job runner runs it, whose key was
 * checked when it was created (as a video's is when it is submitted).
 */
export function resolveChatModelOfJob(catalog: Catalog, dialect: Dialect, decoded: ChatRequest, body: unknown): ResolvedChat {
  return fitToModel(dialect, decoded, chatModelOf(catalog, decoded), body);
}

function chatModelOf(catalog: Catalog, decoded: ChatRequest): CatalogModel {
  const model = catalog.resolve(decoded.model);
  if (model.type !== 'text' && model.type !== 'search') {
    throw invalid(['body', 'model'], `"${decoded.model}" is a ${model.type} model, not a chat model`, decoded.model);
  }
  return model;
}

function fitToModel(dialect: Dialect, decoded: ChatRequest, model: CatalogModel, body: unknown): ResolvedChat {
  const capabilities = capabilitiesOf(model);
  const fitted = fitEffortHint(decoded, capabilities);
  checkCapabilities(dialect, fitted, capabilities, model.id, body);
  checkDocuments(dialect, fitted, model, body);
  const request = withoutPointlessOff(clampOutputBudget(fitted, capabilities), capabilities);
  const clampedFrom = request.maxOutputTokens === fitted.maxOutputTokens ? undefined : fitted.maxOutputTokens;
  return { model, capabilities, request, ...(clampedFrom === undefined ? {} : { maxOutputTokensClampedFrom: clampedFrom }) };
}

/**
 * An output budget above the model's limit is served at the limit, not refused: coding agents
 * send one budget for every model (Claude Code: 32000), and the vendors' own APIs of the smaller
 * models are the exception in refusing it. The hold and the context-window fit use the limit;
 * the response says so in a header (x-gateway-max-tokens-clamped).
 */
function clampOutputBudget(request: ChatRequest, capabilities: ModelCapabilities): ChatRequest {
  if (request.maxOutputTokens === undefined || request.maxOutputTokens <= capabilities.maxOutputTokens) return request;
  return { ...request, maxOutputTokens: capabilities.maxOutputTokens };
}

/** Reasoning switched off on a model that does not reason: nothing to switch off, the request goes without it. */
function withoutPointlessOff(request: ChatRequest, capabilities: ModelCapabilities): ChatRequest {
  if (request.reasoningEffort !== 'off' || capabilities.reasoningEfforts.length > 0) return request;
  const { reasoningEffort: _off, ...rest } = request;
  return rest;
}

/** The efforts a model accepts: its list, and 'off' where reasoning can be switched off. */
function allowedEfforts(capabilities: ModelCapabilities): ReasoningEffort[] {
  const allowed = [...capabilities.reasoningEfforts];
  if (capabilities.canDisableReasoning && !allowed.includes('off')) allowed.push('off');
  return allowed;
}

/**
 * An effort that is only a hint (Anthropic `output_config.effort`) never refuses a request:
 * the closest level the model has is used, and a model that does not reason ignores it.
 */
function fitEffortHint(request: ChatRequest, capabilities: ModelCapabilities): ChatRequest {
  if (!request.reasoningEffortIsHint || request.reasoningEffort === undefined) return request;
  const { reasoningEffort: _hint, reasoningEffortIsHint: _isHint, ...rest } = request;
  const effort = closestReasoningEffort(request.reasoningEffort, allowedEfforts(capabilities));
  return effort === undefined ? rest : { ...rest, reasoningEffort: effort };
}

function checkCapabilities(dialect: Dialect, request: ChatRequest, capabilities: ModelCapabilities, modelId: string, body: unknown): void {
  const { locations } = dialect;
  const effort = request.reasoningEffort;
  // 'off' on a model that does not reason asks for what it does anyway.
  const pointlessOff = effort === 'off' && capabilities.reasoningEfforts.length === 0;
  if (effort !== undefined && !pointlessOff) {
    const allowed = allowedEfforts(capabilities);
    if (!allowed.includes(effort)) {
      const choices = allowed.length > 0 ? `use one of ${allowed.map((e) => `'${e}'`).join(', ')}` : 'this model does not reason; leave it out';
      const sent = valueAt(body, locations.reasoningEffort) ?? effort;
      throw invalid([...locations.reasoningEffort], `${fieldName(locations.reasoningEffort)} ${JSON.stringify(sent)} is not supported by ${modelId}: ${choices}`, sent);
    }
  }
  if (!capabilities.vision && request.messages.some((m) => m.content.some((p) => p.type === 'image' || (p.type === 'tool_result' && p.content.some((c) => c.type === 'image'))))) {
    throw invalid([...locations.messages], `${modelId} does not accept images`);
  }
  if (!capabilities.tools && request.tools.length > 0) {
    throw invalid([...locations.tools], `${modelId} does not support tools`);
  }
}

/**
 * Documents go only to routes whose upstream takes them natively (Anthropic, OpenAI); a model
 * with any other route is refused them rather than answering without having read them.
 */
function checkDocuments(dialect: Dialect, request: ChatRequest, model: CatalogModel, body: unknown): void {
  if (!request.messages.some((message) => message.content.some((part) => part.type === 'document'))) return;
  const route = model.routes.find((candidate) => chatAdapterFor(candidate.provider.kind)?.takesDocuments !== true);
  if (route === undefined) return;
  const loc = firstDocumentLocation(body) ?? dialect.locations.messages;
  throw invalid([...loc], `${model.id} is served by provider "${route.provider.name}" (${route.provider.kind}), which does not take document blocks; send the document's text as a text block`, 'document');
}

/** Where the first document block of a Messages body is: ['body', 'messages', i, 'content', j]. */
function firstDocumentLocation(body: unknown): (string | number)[] | undefined {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return undefined;
  for (const [i, message] of messages.entries()) {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    const j = content.findIndex((block) => (block as { type?: unknown } | null)?.type === 'document');
    if (j >= 0) return ['body', 'messages', i, 'content', j, 'type'];
  }
  return undefined;
}

/** The field of a location as a client writes it: ['body', 'reasoning', 'effort'] → reasoning.effort. */
function fieldName(loc: readonly (string | number)[]): string {
  return loc.filter((part, i) => !(i === 0 && part === 'body')).join('.');
}

/** The value the client sent at a location of its body, if any. */
function valueAt(body: unknown, loc: readonly (string | number)[]): unknown {
  let value: unknown = { body };
  for (const part of loc) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value ?? undefined;
}
