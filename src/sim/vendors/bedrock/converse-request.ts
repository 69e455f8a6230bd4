// Reads a Bedrock Converse / ConverseStream request body: validates what Bedrock refuses with
// a ValidationException (no messages, a conversation not starting with a user turn or not
// alternating, blank text, tool blocks without a toolConfig, unpaired tool calls, Claude
// reasoning with a bad signature, thinking with temperature or a budget that does not fit,
// fields a model family does not take), counts the tokens with the simulator's one rule
// (tokens.ts), and reduces the conversation to the SimPrompt the answer is planned from. The
// prompt's pieces are kept in order (tools, system, messages) with the `cachePoint` blocks
// that end a cached prefix (read by converse-cache.ts).
import { checkToolPairing, type PairingTurn } from '../../conversation.js';
import { invalid } from '../../errors.js';
import { isRecord, requireRecord, requireString, type JsonObject } from '../../guards.js';
import { stableJson } from '../../prefix-cache.js';
import type { SimPrompt, SimTool, SimToolChoice } from '../../script.js';
import { defaultSigningSecret, isValidThinkingSignature } from '../../signatures.js';
import { countTokens, countToolTokens, imageTokens, messageOverheadTokens } from '../../tokens.js';

export interface Segment {
  readonly value: unknown;
  readonly tokens: number;
  /** A cachePoint follows this piece: the prefix up to here is cached. */
  readonly breakpoint: boolean;
}

export interface ParsedConverseRequest {
  readonly model: string;
  readonly prompt: SimPrompt;
  /** Every input token, cached or not. */
  readonly totalTokens: number;
  readonly segments: readonly Segment[];
  /** Whether Claude's stop_sequence was asked for (additionalModelResponseFieldPaths). */
  readonly wantsStopSequence: boolean;
}

/** Reasoning shown at most this long (tokens), whatever the budget: keeps answers small. */
const maxThinkingTokens = 40;
const maxCachePoints = 4;
const imageFormats = new Set(['png', 'jpeg', 'gif', 'webp']);
const documentFormats = new Set(['pdf', 'csv', 'doc', 'docx', 'xls', 'xlsx', 'html', 'txt', 'md']);

export const isClaude = (model: string) => model.includes('anthropic.claude');
const takesCachePoints = (model: string) => isClaude(model) || model.includes('amazon.nova');
/** Llama on Converse takes tool choice `auto` only. */
const takesForcedTools = (model: string) => !model.includes('meta.llama');

interface Turn extends PairingTurn {
  readonly role: 'user' | 'assistant';
  readonly firstMessage: number;
  readonly toolCallIds: string[];
  readonly toolResultIds: string[];
  readonly blockKinds: string[];
  texts: string[];
  images: number;
  toolResults: string[];
}

/** The one member of a content block (Converse blocks are unions: exactly one key is set). */
function memberOf(block: JsonObject, at: string): [string, unknown] {
  const keys = Object.keys(block).filter((key) => block[key] !== undefined && block[key] !== null);
  if (keys.length !== 1) throw invalid(`${at}: a content block must have exactly one member set`);
  return [keys[0]!, block[keys[0]!]];
}

function readImage(value: unknown, at: string): void {
  const image = requireRecord(value, `${at}.image`);
  if (typeof image.format !== 'string' || !imageFormats.has(image.format)) throw invalid(`${at}.image.format: expected one of png, jpeg, gif, webp`);
  const source = requireRecord(image.source, `${at}.image.source`);
  if (typeof source.bytes !== 'string' && !isRecord(source.s3Location)) throw invalid(`${at}.image.source: expected bytes or s3Location`);
}

function readToolResult(value: unknown, at: string): { id: string; text: string; tokens: number } {
  const result = requireRecord(value, `${at}.toolResult`);
  const id = requireString(result.toolUseId, `${at}.toolResult.toolUseId`);
  if (!Array.isArray(result.content)) throw invalid(`${at}.toolResult.content: expected an array`);
  const texts: string[] = [];
  let tokens = 0;
  result.content.forEach((item: unknown, index) => {
    const where = `${at}.toolResult.content.${index}`;
    const [kind, member] = memberOf(requireRecord(item, where), where);
    if (kind === 'text') {
      texts.push(requireString(member, `${where}.text`));
      tokens += countTokens(member as string);
    } else if (kind === 'json') {
      texts.push(JSON.stringify(member));
      tokens += countTokens(JSON.stringify(member));
    } else if (kind === 'image') {
      readImage(member, where);
      tokens += imageTokens;
    } else tokens += countTokens(stableJson(member));
  });
  if (result.status !== undefined && result.status !== 'success' && result.status !== 'error') throw invalid(`${at}.toolResult.status: expected success or error`);
  return { id, text: texts.join(''), tokens };
}

function readTools(body: JsonObject, model: string, push: (value: unknown, tokens: number) => void, mark: () => void): { tools: SimTool[]; choice: SimToolChoice } {
  if (body.toolConfig === undefined || body.toolConfig === null) return { tools: [], choice: { type: 'auto' } };
  const config = requireRecord(body.toolConfig, 'toolConfig');
  if (!Array.isArray(config.tools) || config.tools.length === 0) throw invalid('toolConfig.tools: expected at least one tool');
  const tools: SimTool[] = [];
  config.tools.forEach((item: unknown, index) => {
    const at = `toolConfig.tools.${index}`;
    const [kind, member] = memberOf(requireRecord(item, at), at);
    if (kind === 'cachePoint') return mark();
    if (kind !== 'toolSpec') throw invalid(`${at}: expected toolSpec or cachePoint`);
    const spec = requireRecord(member, `${at}.toolSpec`);
    const name = requireString(spec.name, `${at}.toolSpec.name`);
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) throw invalid(`${at}.toolSpec.name: expected 1-64 letters, digits, _ or -`);
    const schema = requireRecord(requireRecord(spec.inputSchema, `${at}.toolSpec.inputSchema`).json, `${at}.toolSpec.inputSchema.json`);
    tools.push({ name, schema });
    push({ toolSpec: spec }, countToolTokens(name, typeof spec.description === 'string' ? spec.description : undefined, schema));
  });
  if (config.toolChoice === undefined || config.toolChoice === null) return { tools, choice: { type: 'auto' } };
  const [kind, member] = memberOf(requireRecord(config.toolChoice, 'toolConfig.toolChoice'), 'toolConfig.toolChoice');
  if (kind !== 'auto' && !takesForcedTools(model)) throw invalid(`This model doesn't support the toolConfig.toolChoice.${kind} field. Remove toolConfig.toolChoice.${kind} and try again.`);
  switch (kind) {
    case 'auto':
      return { tools, choice: { type: 'auto' } };
    case 'any':
      return { tools, choice: { type: 'required' } };
    case 'tool': {
      const name = requireString(requireRecord(member, 'toolConfig.toolChoice.tool').name, 'toolConfig.toolChoice.tool.name');
      if (!tools.some((tool) => tool.name === name)) throw invalid(`toolConfig.toolChoice.tool.name: tool "${name}" is not in toolConfig.tools`);
      return { tools, choice: { type: 'tool', name } };
    }
    default:
      throw invalid('toolConfig.toolChoice: expected auto, any or tool');
  }
}

interface Inference {
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly stop: readonly string[];
}

function readInference(value: unknown): Inference {
  if (value === undefined || value === null) return { stop: [] };
  const config = requireRecord(value, 'inferenceConfig');
  const maxTokens = config.maxTokens;
  if (maxTokens !== undefined && (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)) throw invalid('inferenceConfig.maxTokens: expected an integer >= 1');
  const temperature = config.temperature;
  if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 1)) throw invalid('inferenceConfig.temperature: expected a number from 0 to 1');
  if (config.topP !== undefined && (typeof config.topP !== 'number' || config.topP < 0 || config.topP > 1)) throw invalid('inferenceConfig.topP: expected a number from 0 to 1');
  const stop = config.stopSequences ?? [];
  if (!Array.isArray(stop) || !stop.every((item) => typeof item === 'string' && item.length > 0)) throw invalid('inferenceConfig.stopSequences: expected an array of non-empty strings');
  return { ...(maxTokens !== undefined ? { maxTokens: maxTokens as number } : {}), ...(temperature !== undefined ? { temperature: temperature as number } : {}), stop: stop as string[] };
}

/** Claude's `thinking` through additionalModelRequestFields; any other model refuses the key. */
function readThinking(body: JsonObject, model: string, inference: Inference): { enabled: boolean; tokens: number } {
  const fields = body.additionalModelRequestFields === undefined || body.additionalModelRequestFields === null ? {} : requireRecord(body.additionalModelRequestFields, 'additionalModelRequestFields');
  const value = fields.thinking;
  if (value === undefined || value === null) return { enabled: false, tokens: 0 };
  if (!isClaude(model)) throw invalid('The model returned the following errors: extraneous key [thinking] is not permitted');
  const thinking = requireRecord(value, 'additionalModelRequestFields.thinking');
  if (thinking.type === 'disabled') return { enabled: false, tokens: 0 };
  if (thinking.type !== 'enabled') throw invalid('The model returned the following errors: thinking.type: expected enabled or disabled');
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1024) throw invalid('The model returned the following errors: thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
  if (inference.maxTokens !== undefined && inference.maxTokens <= budget) throw invalid('The model returned the following errors: `max_tokens` must be greater than `thinking.budget_tokens`');
  if (inference.temperature !== undefined && inference.temperature !== 1) throw invalid('The model returned the following errors: `temperature` may only be set to 1 when thinking is enabled');
  return { enabled: true, tokens: Math.min(budget, maxThinkingTokens) };
}

export function parseConverseRequest(body: unknown, model: string, seed: string): ParsedConverseRequest {
  if (!isRecord(body)) throw invalid('the request body must be a JSON object');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalid('messages: the conversation must contain at least one message');
  const segments: Segment[] = [];
  const push = (value: unknown, tokens: number) => segments.push({ value, tokens, breakpoint: false });
  let cachePoints = 0;
  const mark = () => {
    if (!takesCachePoints(model)) throw invalid("This model doesn't support caching. Remove the cachePoint blocks and try again.");
    cachePoints++;
    const last = segments.at(-1);
    if (last) segments[segments.length - 1] = { ...last, breakpoint: true };
  };
  const { tools, choice } = readTools(body, model, push, mark);
  const inference = readInference(body.inferenceConfig);
  const thinking = readThinking(body, model, inference);

  const instructions: string[] = [];
  if (body.system !== undefined && body.system !== null) {
    if (!Array.isArray(body.system)) throw invalid('system: expected an array of system content blocks');
    body.system.forEach((item: unknown, index) => {
      const at = `system.${index}`;
      const [kind, member] = memberOf(requireRecord(item, at), at);
      if (kind === 'cachePoint') return mark();
      if (kind !== 'text') return push({ system: member }, countTokens(stableJson(member)));
      const text = requireString(member, `${at}.text`);
      if (text.trim() === '') throw invalid(`${at}.text: the text field is blank`);
      instructions.push(text);
      push({ system: text }, (index === 0 ? messageOverheadTokens : 0) + countTokens(text));
    });
  }

  const turns = readMessages(body.messages as unknown[], model, push, mark);
  if (cachePoints > maxCachePoints) throw invalid(`A maximum of ${maxCachePoints} cachePoint blocks may be provided. Found ${cachePoints}.`);
  const toolBlocks = turns.some((turn) => turn.toolCallIds.length > 0 || turn.toolResultIds.length > 0);
  if (toolBlocks && tools.length === 0) throw invalid('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  const problem = checkToolPairing(turns);
  if (problem) {
    const at = turns[problem.turn]!.firstMessage;
    throw problem.kind === 'missing_result'
      ? invalid(`messages.${at}: Expected toolResult blocks at messages.${at + 1}.content for the following Ids: ${problem.ids.join(', ')}`)
      : invalid(`messages.${at}: toolResult blocks at messages.${at}.content have no matching toolUse: ${problem.ids.join(', ')}`);
  }
  const lastAssistant = turns.findLast((turn) => turn.role === 'assistant');
  if (thinking.enabled && lastAssistant && lastAssistant.toolCallIds.length > 0 && lastAssistant.blockKinds[0] !== 'reasoningContent') {
    throw invalid(
      `The model returned the following errors: messages.${lastAssistant.firstMessage}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${lastAssistant.blockKinds[0]}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`,
    );
  }
  const paths = body.additionalModelResponseFieldPaths;
  const lastTurn = turns.at(-1)!;
  const lastUser = turns.findLast((turn) => turn.role === 'user');
  const endsWithUser = lastTurn.role === 'user';
  const prompt: SimPrompt = {
    userText: lastUser?.texts.join('\n') ?? '',
    instructions: instructions.join('\n'),
    images: lastUser?.images ?? 0,
    toolResults: endsWithUser && lastTurn.toolResultIds.length > 0 ? lastTurn.toolResults : null,
    endsWithUser,
    tools,
    toolChoice: choice,
    parallelToolCalls: true,
    ...(inference.maxTokens !== undefined ? { maxTokens: inference.maxTokens } : {}),
    stop: inference.stop,
    reasoningTokens: thinking.tokens,
    canRedact: isClaude(model),
    search: false,
    seed,
    // Converse has no response format: structured output comes as a forced tool, which the
    // script answers by calling it.
  };
  return {
    model,
    prompt,
    totalTokens: segments.reduce((sum, segment) => sum + segment.tokens, 0),
    segments,
    wantsStopSequence: isClaude(model) && Array.isArray(paths) && paths.includes('/stop_sequence'),
  };
}

function readMessages(messages: readonly unknown[], model: string, push: (value: unknown, tokens: number) => void, mark: () => void): Turn[] {
  const turns: Turn[] = [];
  messages.forEach((message, messageIndex) => {
    const where = `messages.${messageIndex}`;
    const record = requireRecord(message, where);
    const role = record.role;
    if (role !== 'user' && role !== 'assistant') throw invalid(`${where}.role: expected user or assistant`);
    if (messageIndex === 0 && role !== 'user') throw invalid('A conversation must start with a user message. Try again with a conversation that starts with a user message.');
    if (turns.at(-1)?.role === role) throw invalid('A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.');
    if (!Array.isArray(record.content) || record.content.length === 0) throw invalid(`${where}.content: expected at least one content block`);
    const turn: Turn = { role, firstMessage: messageIndex, toolCallIds: [], toolResultIds: [], blockKinds: [], texts: [], images: 0, toolResults: [] };
    turns.push(turn);
    record.content.forEach((block: unknown, blockIndex) => {
      const at = `${where}.content.${blockIndex}`;
      const [kind, member] = memberOf(requireRecord(block, at), at);
      if (kind === 'cachePoint') return mark();
      turn.blockKinds.push(kind);
      push({ role, block }, (blockIndex === 0 ? messageOverheadTokens : 0) + blockTokens(turn, kind, member, at, model));
    });
  });
  return turns;
}

/** A message block's tokens, noting in `turn` what the answer depends on. */
function blockTokens(turn: Turn, kind: string, member: unknown, at: string, model: string): number {
  const misplaced = () => invalid(`${at}: ${kind} blocks are not allowed in ${turn.role} messages`);
  switch (kind) {
    case 'text': {
      const text = requireString(member, `${at}.text`);
      if (text.trim() === '') throw invalid(`The text field in the ContentBlock object at ${at} is blank. Add text to the text field, and try again.`);
      turn.texts.push(text);
      return countTokens(text);
    }
    case 'image':
      if (turn.role !== 'user') throw misplaced();
      readImage(member, at);
      turn.images++;
      return imageTokens;
    case 'document': {
      if (turn.role !== 'user') throw misplaced();
      const document = requireRecord(member, `${at}.document`);
      if (typeof document.format !== 'string' || !documentFormats.has(document.format)) throw invalid(`${at}.document.format: expected one of ${[...documentFormats].join(', ')}`);
      const name = requireString(document.name, `${at}.document.name`);
      if (!/^[A-Za-z0-9\-()[\]]+( [A-Za-z0-9\-()[\]]+)*$/.test(name)) throw invalid(`${at}.document.name: only alphanumeric characters, single spaces, hyphens, parentheses and square brackets`);
      const bytes = requireString(requireRecord(document.source, `${at}.document.source`).bytes, `${at}.document.source.bytes`);
      return countTokens(Buffer.from(bytes, 'base64').toString('utf8'));
    }
    case 'toolResult': {
      if (turn.role !== 'user') throw misplaced();
      const result = readToolResult(member, at);
      turn.toolResultIds.push(result.id);
      turn.toolResults.push(result.text);
      return result.tokens;
    }
    case 'toolUse': {
      if (turn.role !== 'assistant') throw misplaced();
      const use = requireRecord(member, `${at}.toolUse`);
      turn.toolCallIds.push(requireString(use.toolUseId, `${at}.toolUse.toolUseId`));
      return countTokens(requireString(use.name, `${at}.toolUse.name`)) + countTokens(JSON.stringify(requireRecord(use.input, `${at}.toolUse.input`)));
    }
    case 'reasoningContent': {
      if (turn.role !== 'assistant') throw misplaced();
      const reasoning = requireRecord(member, `${at}.reasoningContent`);
      if (typeof reasoning.redactedContent === 'string') return countTokens(reasoning.redactedContent);
      const text = requireRecord(reasoning.reasoningText, `${at}.reasoningContent.reasoningText`);
      const thought = requireString(text.text, `${at}.reasoningContent.reasoningText.text`);
      if (isClaude(model) && !isValidThinkingSignature(defaultSigningSecret, thought, text.signature)) throw invalid('The model returned the following errors: Invalid `signature` in `thinking` block');
      return countTokens(thought);
    }
    default:
      return countTokens(stableJson(member));
  }
}
