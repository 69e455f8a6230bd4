// ChatRequest → the upstream Chat Completions request (wire-formats §1), always streamed with
// usage. Shared by the openai and openai-compatible adapters; the options carry where their
// wires differ.
import type { ChatRequest, ModelCapabilities, ReasoningEffort, ResponseFormat, ToolChoice } from '../../model/chat.js';
import type { UpstreamHttpRequest, UpstreamTarget } from '../types.js';
import { toChatCompletionsMessages, type MessageOptions } from './messages.js';

export interface ChatCompletionsRequestOptions extends MessageOptions {
  /** OpenAI's `max_completion_tokens` (counts reasoning), or the older `max_tokens` most compatible servers read. */
  readonly maxTokensField: 'max_completion_tokens' | 'max_tokens';
}

export function buildChatCompletionsRequest(request: ChatRequest, target: UpstreamTarget, options: ChatCompletionsRequestOptions): UpstreamHttpRequest {
  const body: Record<string, unknown> = {
    model: target.model,
    messages: toChatCompletionsMessages(request, options),
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.parameters,
        ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
      },
    }));
    // Both are refused by OpenAI when no tools are given.
    if (request.toolChoice) body.tool_choice = toolChoiceOf(request.toolChoice);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  body[options.maxTokensField] = target.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop.length > 0) body.stop = request.stop;
  if (request.user !== undefined) body.user = request.user;
  const effort = reasoningEffortFor(request.reasoningEffort, target.capabilities);
  if (effort !== undefined) body.reasoning_effort = effort;
  if (request.responseFormat) body.response_format = responseFormatOf(request.responseFormat);
  body.stream = true;
  body.stream_options = { include_usage: true };

  return {
    url: `${target.baseUrl.replace(/\/+$/, '')}/chat/completions`,
    headers: {
      'content-type': 'application/json',
      ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}),
    },
    body,
  };
}

/** Structured output goes up as sent: the Chat Completions `response_format` is this wire's own. */
function responseFormatOf(format: ResponseFormat): Record<string, unknown> {
  if (format.type === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name,
      ...(format.description !== undefined ? { description: format.description } : {}),
      schema: format.schema,
      ...(format.strict !== undefined ? { strict: format.strict } : {}),
    },
  };
}

function toolChoiceOf(choice: ToolChoice): string | { type: 'function'; function: { name: string } } {
  return choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
}

/**
 * Only models that list efforts take `reasoning_effort` (others reject the field). 'off'
 * goes up only when the model lists it; otherwise "no reasoning" is the model's own default.
 * OpenAI names the ends of the scale `none` and `xhigh`: `max`, above its strongest level, is sent
 * as its nearest, `xhigh`.
 */
function reasoningEffortFor(effort: ReasoningEffort | undefined, capabilities: ModelCapabilities): string | undefined {
  if (effort === undefined || capabilities.reasoningEfforts.length === 0) return undefined;
  if (effort === 'off') return capabilities.reasoningEfforts.includes('off') ? 'none' : undefined;
  return effort === 'max' ? 'xhigh' : effort;
}
