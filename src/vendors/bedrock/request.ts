// ChatRequest → a Bedrock ConverseStream request: POST {endpoint}/model/{modelId}/converse-stream
// with messages, system, inferenceConfig (maxTokens, temperature, topP, stopSequences),
// toolConfig and, for Claude, additionalModelRequestFields.thinking. Always streamed, as every
// upstream call of the gateway; the signature (SigV4) is added by the transport (signing.ts).
// Model families differ in what Converse lets through to them:
//   - Claude: thinking (budget from the effort), the stop sequence that fired (asked for with
//     additionalModelResponseFieldPaths), prompt-cache points on system, tools and messages;
//   - Nova: cache points on system and messages; Llama and Mistral: none (no prompt cache).
// Lossy, where Converse has no slot:
//   - tool_choice `none` has no Converse value: the tools are left out (kept, with no choice,
//     when the conversation already holds tool calls: Converse then wants a toolConfig);
//   - parallel_tool_calls=false, a tool's `strict` flag and the end-user id are not sent;
//   - temperature and top_p are left out while Claude thinks (Anthropic refuses them then);
//   - structured output is a forced tool whose input is the answer (output-tool.ts), which
//     needs a model that takes a forced tool choice (Claude, Mistral Large, Nova; not Llama).
import type { ChatRequest, ToolChoice, ToolDefinition } from '../../model/chat.js';
import { budgetForEffort } from '../../model/reasoning.js';
import type { UpstreamHttpRequest, UpstreamTarget } from '../types.js';
import { endpointOf } from './endpoint.js';
import { mentionsTools, toConverseMessages, type CachePointBlock, type ConverseMessage, type UserBlock } from './messages.js';
import { isClaude, takesCachePoints } from './model-family.js';
import { bedrockOutputTool, bedrockOutputToolName } from './output-tool.js';

const cachePoint: CachePointBlock = { cachePoint: { type: 'default' } };

export function buildConverseRequest(request: ChatRequest, target: UpstreamTarget): UpstreamHttpRequest {
  const caches = takesCachePoints(target.model);
  const messages = toConverseMessages(request.messages);
  const body: Record<string, unknown> = { messages: caches ? markConversationPrefix(messages) : messages };
  const system = request.system.filter((part) => part.text !== '').map((part) => ({ text: part.text }));
  if (system.length > 0) body.system = caches ? [...system, cachePoint] : system;

  const outputName = bedrockOutputToolName(request);
  const toolConfig = toolConfigOf(request, outputName, messages);
  // Nova caches system and messages only; Claude tools too.
  if (toolConfig) body.toolConfig = isClaude(target.model) ? { ...toolConfig, tools: [...toolConfig.tools, cachePoint] } : toolConfig;

  const thinking = thinkingFor(request, target, messages, outputName !== undefined);
  const inference: Record<string, unknown> = { maxTokens: target.maxOutputTokens };
  if (thinking?.type !== 'enabled') {
    if (request.temperature !== undefined) inference.temperature = request.temperature;
    if (request.topP !== undefined) inference.topP = request.topP;
  }
  if (request.stop.length > 0) inference.stopSequences = request.stop;
  body.inferenceConfig = inference;
  if (thinking) body.additionalModelRequestFields = { thinking };
  // Converse says `stop_sequence` for any sequence; Claude tells which one, when asked.
  if (isClaude(target.model) && request.stop.length > 0) body.additionalModelResponseFieldPaths = ['/stop_sequence'];

  return {
    url: `${endpointOf(target)}/model/${encodeURIComponent(target.model)}/converse-stream`,
    headers: { 'content-type': 'application/json', accept: 'application/vnd.amazon.eventstream' },
    body,
  };
}

interface ToolConfig {
  readonly tools: readonly Record<string, unknown>[];
  readonly toolChoice?: Record<string, unknown>;
}

function toolConfigOf(request: ChatRequest, outputName: string | undefined, messages: readonly ConverseMessage[]): ToolConfig | undefined {
  const tools = request.tools.map(toolSpecOf);
  if (outputName !== undefined) {
    return { tools: [...tools, { toolSpec: bedrockOutputTool(request.responseFormat!, outputName) }], toolChoice: outputToolChoice(request, outputName) };
  }
  if (tools.length === 0) return undefined;
  if (request.toolChoice?.type === 'none') return mentionsTools(messages) ? { tools } : undefined;
  const toolChoice = toolChoiceOf(request.toolChoice);
  return toolChoice ? { tools, toolChoice } : { tools };
}

function toolSpecOf(tool: ToolDefinition): Record<string, unknown> {
  return {
    toolSpec: {
      name: tool.name,
      ...(tool.description !== undefined && tool.description !== '' ? { description: tool.description } : {}),
      inputSchema: { json: { type: 'object', ...tool.parameters } },
    },
  };
}

function toolChoiceOf(choice: ToolChoice | undefined): Record<string, unknown> | undefined {
  switch (choice?.type) {
    case 'auto':
      return { auto: {} };
    case 'required':
      return { any: {} };
    case 'tool':
      return { tool: { name: choice.name } };
    default:
      return undefined;
  }
}

/** The output tool is forced when no client tool can be called; else any tool, or the client's named one. */
function outputToolChoice(request: ChatRequest, name: string): Record<string, unknown> {
  const choice = request.toolChoice;
  if (request.tools.length === 0 || choice?.type === 'none') return { tool: { name } };
  if (choice?.type === 'tool') return { tool: { name: choice.name } };
  return { any: {} };
}

type Thinking = { type: 'enabled'; budget_tokens: number } | { type: 'disabled' };

/**
 * Claude only: an effort → a thinking budget from the shared table (below maxTokens, at least
 * 1024, else none); 'off' → disabled. Not with a forced tool (Anthropic refuses the pair), nor
 * when answering a tool turn that has no reasoning block (it came from another upstream).
 */
function thinkingFor(request: ChatRequest, target: UpstreamTarget, messages: readonly ConverseMessage[], outputToolForced: boolean): Thinking | undefined {
  const effort = request.reasoningEffort;
  if (effort === undefined || !isClaude(target.model) || target.capabilities.reasoningEfforts.length === 0) return undefined;
  if (effort === 'off') return { type: 'disabled' };
  const forcesTool = outputToolForced || request.toolChoice?.type === 'required' || request.toolChoice?.type === 'tool';
  if (forcesTool || continuesUnthoughtToolTurn(messages)) return undefined;
  const budget = budgetForEffort(effort, target.maxOutputTokens);
  return budget === undefined ? undefined : { type: 'enabled', budget_tokens: budget };
}

function continuesUnthoughtToolTurn(messages: readonly ConverseMessage[]): boolean {
  const lastAssistant = messages.findLast((message) => message.role === 'assistant');
  if (!lastAssistant || !lastAssistant.content.some((block) => 'toolUse' in block)) return false;
  return !('reasoningContent' in lastAssistant.content[0]!);
}

/**
 * A cache point after the user turn before the last one, as the anthropic adapter places its
 * breakpoint (anthropic/cache-control.ts): the next turn of the conversation reads it.
 */
function markConversationPrefix(messages: readonly ConverseMessage[]): ConverseMessage[] {
  const userPositions = messages.flatMap((message, position) => (message.role === 'user' ? [position] : []));
  if (userPositions.length < 2) return [...messages];
  const marked = userPositions[userPositions.length - 2];
  return messages.map((message, position) => (position === marked ? { role: 'user', content: [...(message.content as readonly UserBlock[]), cachePoint] } : message));
}
