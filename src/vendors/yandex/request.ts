// ChatRequest → `POST {base}/foundationModels/v1/completion` (Yandex Foundation Models, REST),
// always streamed. Where the wire differs from Chat Completions:
//   - the model is a URI naming the folder: `gpt://<folder_id>/yandexgpt/latest`;
//   - `completionOptions.maxTokens` is a STRING (an int64 in JSON), temperature is 0…1
//     (a larger client value is sent as 1);
//   - reasoning is on or off (`reasoningOptions.mode`: ENABLED_HIDDEN / DISABLED), no efforts;
//   - tools are `{function: {name, description, parameters}}`; `toolChoice` is a mode or a
//     function name;
//   - structured output is `jsonObject: true` or `jsonSchema: {schema}`;
//   - top_p, stop sequences and the end-user id have no field and are not sent.
import type { ChatRequest, ToolChoice } from '../../model/chat.js';
import type { UpstreamHttpRequest, UpstreamTarget } from '../types.js';
import { toYandexMessages } from './messages.js';
import { modelUri, yandexHeaders, yandexSettingsOf } from './settings.js';

export const completionPath = '/foundationModels/v1/completion';

export function buildCompletionRequest(request: ChatRequest, target: UpstreamTarget, stream = true): UpstreamHttpRequest {
  const settings = yandexSettingsOf(target.settings);
  const completionOptions: Record<string, unknown> = { stream, maxTokens: String(target.maxOutputTokens) };
  if (request.temperature !== undefined) completionOptions.temperature = Math.min(request.temperature, 1);
  const reasoning = reasoningModeOf(request, target);
  if (reasoning !== undefined) completionOptions.reasoningOptions = { mode: reasoning };
  const body: Record<string, unknown> = {
    modelUri: modelUri('gpt', target.model, settings.folderId),
    completionOptions,
    messages: toYandexMessages(request),
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      function: { name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), parameters: tool.parameters },
    }));
    if (request.toolChoice) body.toolChoice = toolChoiceOf(request.toolChoice);
    if (request.parallelToolCalls !== undefined) body.parallelToolCalls = request.parallelToolCalls;
  }
  if (request.responseFormat?.type === 'json_object') body.jsonObject = true;
  else if (request.responseFormat?.type === 'json_schema') body.jsonSchema = { schema: request.responseFormat.schema };
  return {
    url: `${target.baseUrl.replace(/\/+$/, '')}${completionPath}`,
    headers: { 'content-type': 'application/json', ...yandexHeaders(target.apiKey, settings) },
    body,
  };
}

/** Only models that list efforts reason; any effort turns hidden reasoning on, 'off' turns it off. */
function reasoningModeOf(request: ChatRequest, target: UpstreamTarget): string | undefined {
  if (request.reasoningEffort === undefined || target.capabilities.reasoningEfforts.length === 0) return undefined;
  return request.reasoningEffort === 'off' ? 'DISABLED' : 'ENABLED_HIDDEN';
}

function toolChoiceOf(choice: ToolChoice): Record<string, string> {
  return choice.type === 'tool' ? { functionName: choice.name } : { mode: choice.type.toUpperCase() };
}
