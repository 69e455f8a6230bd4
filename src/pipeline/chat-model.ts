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
  /** The request with a hinted effort fitted to the model. */
  readonly request: ChatRequest;
}

/**
 * Resolves the model of a decoded request and checks it can serve this request for this key.
 * The request comes back with a hinted effort fitted to the model.
 */
export function resolveChatModel(
  catalog: Catalog,
  dialect: Dialect,
  decoded: ChatRequest,
  apiKey: ApiKey,
): ResolvedChat {
  const model = catalog.resolve(decoded.model);
  if (model.type !== 'text' && model.type !== 'search') {
    throw invalid(['body', 'model'], `"${decoded.model}" is a ${model.type} model, not a chat model`, decoded.model);
  }
  if (model.type === 'search') assertScope(apiKey, 'search');
  assertModelAllowed(apiKey, model.id, decoded.model);
  const capabilities = capabilitiesOf(model);
  const request = fitEffortHint(decoded, capabilities);
  checkCapabilities(dialect, request, capabilities, model.id);
  return { model, capabilities, request };
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

function checkCapabilities(dialect: Dialect, request: ChatRequest, capabilities: ModelCapabilities, modelId: string): void {
  const { locations } = dialect;
  const effort = request.reasoningEffort;
  if (effort !== undefined) {
    const allowed = allowedEfforts(capabilities);
    if (!allowed.includes(effort)) {
      const choices = allowed.length > 0 ? `one of ${allowed.map((e) => `'${e}'`).join(', ')}` : 'not set: this model does not reason';
      throw invalid([...locations.reasoningEffort], `reasoning effort '${effort}' is not supported by ${modelId}; use ${choices}`, effort);
    }
  }
  if (request.maxOutputTokens !== undefined && request.maxOutputTokens > capabilities.maxOutputTokens) {
    throw invalid([...locations.maxOutputTokens], `Input should be less than or equal to ${capabilities.maxOutputTokens} (the output limit of ${modelId})`, request.maxOutputTokens, 'less_than_equal');
  }
  if (!capabilities.vision && request.messages.some((m) => m.content.some((p) => p.type === 'image' || (p.type === 'tool_result' && p.content.some((c) => c.type === 'image'))))) {
    throw invalid([...locations.messages], `${modelId} does not accept images`);
  }
  if (!capabilities.tools && request.tools.length > 0) {
    throw invalid([...locations.tools], `${modelId} does not support tools`);
  }
}
