// ChatRequest → the upstream Anthropic Messages request (wire-formats §2), always streamed.
// Lossy, where Anthropic has no slot:
//   - a tool's `strict` flag is not sent (not every Anthropic deployment takes it);
//   - temperature and top_p are left out while thinking is on (Anthropic refuses them then);
//   - structured output: native output_config.format, or a forced output tool (output-tool.ts);
//   - thinking is left off when tool_choice forces a tool (Anthropic refuses that pair): the
//     client's tool choice is the contract, the effort a preference; and when the tool turn
//     being answered has no thinking block (it came from another upstream), see below.
import type { ChatRequest, ToolChoice, ToolDefinition } from '../../model/chat.js';
import { budgetForEffort } from '../../model/reasoning.js';
import type { UpstreamHttpRequest, UpstreamTarget } from '../types.js';
import { markConversationPrefix, markLast } from './cache-control.js';
import { toAnthropicMessages, type AnthropicMessage } from './messages.js';
import { outputTool, outputToolChoice, outputToolName } from './output-tool.js';

export const anthropicVersion = '2023-06-01';

type Thinking = { type: 'enabled'; budget_tokens: number } | { type: 'disabled' };

export function buildMessagesRequest(request: ChatRequest, target: UpstreamTarget): UpstreamHttpRequest {
  const body: Record<string, unknown> = {
    model: target.model,
    max_tokens: target.maxOutputTokens,
  };
  const system = request.system.filter((part) => part.text !== '').map((part) => ({ type: 'text' as const, text: part.text }));
  if (system.length > 0) body.system = markLast(system);
  const messages = toAnthropicMessages(request.messages);
  body.messages = markConversationPrefix(messages);
  const outputName = request.responseFormat ? outputToolName(request, target) : undefined;
  if (outputName !== undefined) {
    body.tools = markLast([...request.tools.map(toolOf), outputTool(request.responseFormat!, outputName)]);
    body.tool_choice = outputToolChoice(request, outputName);
  } else if (request.tools.length > 0) {
    body.tools = markLast(request.tools.map(toolOf));
    const toolChoice = toolChoiceOf(request.toolChoice, request.parallelToolCalls);
    if (toolChoice) body.tool_choice = toolChoice;
  }
  if (request.stop.length > 0) body.stop_sequences = request.stop;
  if (request.responseFormat && outputName === undefined) {
    body.output_config = { ...(body.output_config as Record<string, unknown> | undefined), format: { type: 'json_schema', schema: (request.responseFormat as { schema: unknown }).schema } };
  }
  const thinking = thinkingFor(request, target, messages, outputName !== undefined);
  if (thinking) body.thinking = thinking;
  if (thinking?.type !== 'enabled') {
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.topP !== undefined) body.top_p = request.topP;
  }
  if (request.user !== undefined) body.metadata = { user_id: request.user };
  body.stream = true;

  return {
    url: messagesUrl(target.baseUrl),
    headers: {
      'content-type': 'application/json',
      'anthropic-version': anthropicVersion,
      ...(target.apiKey ? { 'x-api-key': target.apiKey } : {}),
    },
    body,
  };
}

/** `${baseUrl}/v1/messages`; a base URL configured with its `/v1` already is taken as meant. */
function messagesUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return base.endsWith('/v1') ? `${base}/messages` : `${base}/v1/messages`;
}

function toolOf(tool: ToolDefinition): Record<string, unknown> {
  return {
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    input_schema: { type: 'object', ...tool.parameters },
  };
}

function toolChoiceOf(choice: ToolChoice | undefined, parallelToolCalls: boolean | undefined): Record<string, unknown> | undefined {
  // `none` takes no disable_parallel_tool_use (no calls, nothing to serialize).
  if (choice?.type === 'none') return { type: 'none' };
  const noParallel = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallelToolCalls === false ? { type: 'auto', ...noParallel } : undefined;
  switch (choice.type) {
    case 'auto':
      return { type: 'auto', ...noParallel };
    case 'required':
      return { type: 'any', ...noParallel };
    case 'tool':
      return { type: 'tool', name: choice.name, ...noParallel };
  }
}

/**
 * An effort on a model that reasons → a thinking budget from the shared table, kept below
 * max_tokens (omitted when no budget of at least 1024 fits); 'off' → thinking disabled.
 * Without an effort the model's default applies (Anthropic's: no thinking).
 */
function thinkingFor(request: ChatRequest, target: UpstreamTarget, messages: readonly AnthropicMessage[], outputToolForced: boolean): Thinking | undefined {
  const effort = request.reasoningEffort;
  if (effort === undefined || target.capabilities.reasoningEfforts.length === 0) return undefined;
  if (effort === 'off') return { type: 'disabled' };
  const forcesTool = outputToolForced || request.toolChoice?.type === 'required' || request.toolChoice?.type === 'tool';
  if (forcesTool || continuesUnthoughtToolTurn(messages)) return undefined;
  const budget = budgetForEffort(effort, target.maxOutputTokens);
  return budget === undefined ? undefined : { type: 'enabled', budget_tokens: budget };
}

/**
 * With thinking on, Anthropic wants the assistant turn whose tool calls are being answered to
 * start with a thinking block. A turn produced without one (by another upstream — a route
 * fallback — or with thinking off) cannot get one: this request goes without thinking.
 */
function continuesUnthoughtToolTurn(messages: readonly AnthropicMessage[]): boolean {
  const lastAssistant = messages.findLast((message) => message.role === 'assistant');
  if (!lastAssistant || !lastAssistant.content.some((block) => block.type === 'tool_use')) return false;
  const first = lastAssistant.content[0];
  return first.type !== 'thinking' && first.type !== 'redacted_thinking';
}
