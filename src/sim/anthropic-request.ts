// Reads an Anthropic Messages (or count_tokens) request: validates what the real API rejects
// (missing max_tokens, empty content, unpaired tool_use/tool_result, thinking blocks with a bad
// signature, a tool-use turn without its thinking block), counts the tokens, reduces the
// conversation to the SimPrompt the answer is planned from, and lists the cacheable segments
// of the prompt with their `cache_control` breakpoints (read by anthropic-cache.ts).
import { checkToolPairing, type PairingTurn } from './conversation.js';
import { invalid } from './errors.js';
import { isRecord, optionalBoolean, optionalPositiveInteger, requireRecord, requireString, type JsonObject } from './guards.js';
import { stableJson } from './prefix-cache.js';
import type { SimFormat, SimPrompt, SimTool, SimToolChoice } from './script.js';
import { isValidThinkingSignature } from './signatures.js';
import { countTokens, countToolTokens, imageTokens, messageOverheadTokens } from './tokens.js';

/** One cacheable piece of the prompt, in prompt order (tools, system, messages). */
export interface Segment {
  readonly value: unknown;
  readonly tokens: number;
  readonly breakpoint: boolean;
}

export interface ParsedMessagesRequest {
  readonly model: string;
  readonly stream: boolean;
  readonly prompt: SimPrompt;
  /** Every input token, cached or not. */
  readonly totalTokens: number;
  readonly segments: readonly Segment[];
  readonly breakpoints: number;
}

/** Thinking shown at most this long (tokens), whatever the budget: keeps answers small. */
const maxThinkingTokens = 40;
const maxBreakpoints = 4;
const mediaTypes = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

interface Turn extends PairingTurn {
  readonly role: 'user' | 'assistant';
  readonly firstMessage: number;
  readonly toolCallIds: string[];
  readonly toolResultIds: string[];
  readonly blockTypes: string[];
  texts: string[];
  images: number;
  toolResults: string[];
}

function readImageSource(source: unknown, where: string): void {
  const record = requireRecord(source, `${where}.source`);
  if (record.type === 'base64') {
    if (typeof record.media_type !== 'string' || !mediaTypes.has(record.media_type)) {
      throw invalid(`${where}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
    }
    requireString(record.data, `${where}.source.data`);
  } else if (record.type === 'url') {
    requireString(record.url, `${where}.source.url`);
  } else if (record.type !== 'file') {
    throw invalid(`${where}.source.type: Input should be 'base64', 'url' or 'file'`);
  }
}

/** Text and image tokens of a tool_result's content; returns its text for the answer. */
function readToolResultContent(content: unknown, where: string): { text: string; tokens: number } {
  if (content === undefined || content === null) return { text: '', tokens: 0 };
  if (typeof content === 'string') return { text: content, tokens: countTokens(content) };
  if (!Array.isArray(content)) throw invalid(`${where}.content: expected a string or an array of blocks`);
  const texts: string[] = [];
  let tokens = 0;
  content.forEach((block: unknown, index) => {
    const record = requireRecord(block, `${where}.content.${index}`);
    if (record.type === 'text') {
      texts.push(requireString(record.text, `${where}.content.${index}.text`));
      tokens += countTokens(record.text as string);
    } else if (record.type === 'image') {
      readImageSource(record.source, `${where}.content.${index}`);
      tokens += imageTokens;
    } else {
      tokens += countTokens(JSON.stringify(record));
    }
  });
  return { text: texts.join(''), tokens };
}

function readToolChoice(value: unknown, tools: readonly SimTool[]): { choice: SimToolChoice; parallel: boolean } {
  if (value === undefined || value === null) return { choice: { type: 'auto' }, parallel: true };
  const record = requireRecord(value, 'tool_choice');
  const parallel = optionalBoolean(record.disable_parallel_tool_use, 'tool_choice.disable_parallel_tool_use') !== true;
  switch (record.type) {
    case 'auto':
      return { choice: { type: 'auto' }, parallel };
    case 'any':
      return { choice: { type: 'required' }, parallel };
    case 'none':
      return { choice: { type: 'none' }, parallel };
    case 'tool': {
      const name = requireString(record.name, 'tool_choice.name');
      if (!tools.some((tool) => tool.name === name)) throw invalid(`tool_choice: tool "${name}" not found in tools`);
      return { choice: { type: 'tool', name }, parallel };
    }
    default:
      throw invalid(`tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'`);
  }
}

/** Structured output: output_config.format, or the beta's top-level output_format; json_schema with a schema is the only kind. */
function readOutputFormat(body: JsonObject): SimFormat | undefined {
  const config = body.output_config === undefined || body.output_config === null ? undefined : requireRecord(body.output_config, 'output_config');
  const [value, where] = config?.format !== undefined && config.format !== null ? [config.format, 'output_config.format'] : [body.output_format, 'output_format'];
  if (value === undefined || value === null) return undefined;
  const record = requireRecord(value, where);
  if (record.type !== 'json_schema') throw invalid(`${where}.type: Input should be 'json_schema'`);
  return { type: 'json_schema', schema: requireRecord(record.schema, `${where}.schema`) };
}

/** Reasoning tokens to produce: the `thinking` setting applies to models that reason. */
function readThinking(value: unknown, model: string): { enabled: boolean; tokens: number } {
  if (value === undefined || value === null) return { enabled: false, tokens: 0 };
  const record = requireRecord(value, 'thinking');
  let enabled = false;
  let budget = maxThinkingTokens;
  if (record.type === 'enabled') {
    enabled = true;
    budget = optionalPositiveInteger(record.budget_tokens, 'thinking.budget_tokens') ?? Number.NaN;
    if (Number.isNaN(budget)) throw invalid('thinking.enabled.budget_tokens: Field required');
  } else if (record.type === 'adaptive') {
    enabled = true;
  } else if (record.type !== 'disabled') {
    throw invalid(`thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'`);
  }
  return { enabled, tokens: enabled && model.includes('reasoning') ? Math.min(budget, maxThinkingTokens) : 0 };
}

export function parseMessagesRequest(body: unknown, seed: string, signingSecret: string, options: { countOnly: boolean }): ParsedMessagesRequest {
  if (!isRecord(body)) throw invalid('the request body must be a JSON object');
  if (typeof body.model !== 'string' || body.model.length === 0) throw invalid('model: Field required');
  const model = body.model;
  const maxTokens = optionalPositiveInteger(body.max_tokens, 'max_tokens');
  if (maxTokens === undefined && !options.countOnly) throw invalid('max_tokens: Field required');
  if (!Array.isArray(body.messages)) throw invalid('messages: Field required');
  const thinking = readThinking(body.thinking, model);

  const segments: Segment[] = [];
  let breakpoints = 0;
  const push = (value: unknown, tokens: number, marked: unknown) => {
    const breakpoint = isRecord(marked) && marked.cache_control !== undefined && marked.cache_control !== null;
    if (breakpoint) breakpoints++;
    segments.push({ value, tokens, breakpoint });
  };

  const tools: SimTool[] = [];
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw invalid('tools: expected an array');
    body.tools.forEach((tool: unknown, index) => {
      const record = requireRecord(tool, `tools.${index}`);
      const name = requireString(record.name, `tools.${index}.name`);
      // Server tools (web_search_…, bash_…) have a versioned `type` and no schema: counted, never "called".
      if (record.type === undefined || record.type === null || record.type === 'custom') {
        if (!isRecord(record.input_schema)) throw invalid(`tools.${index}.input_schema: Field required`);
        tools.push({ name, schema: record.input_schema });
        push(record, countToolTokens(name, typeof record.description === 'string' ? record.description : undefined, record.input_schema), record);
      } else {
        push(record, countTokens(stableJson(record)), record);
      }
    });
  }

  const instructions: string[] = []; // system texts: JSON mode reads the keys they name
  if (typeof body.system === 'string') {
    instructions.push(body.system);
    if (body.system.length > 0) push({ system: body.system }, messageOverheadTokens + countTokens(body.system), null);
  } else if (Array.isArray(body.system)) {
    body.system.forEach((block: unknown, index) => {
      const record = requireRecord(block, `system.${index}`);
      if (record.type !== 'text') throw invalid(`system.${index}.type: Input should be 'text'`);
      const text = requireString(record.text, `system.${index}.text`);
      instructions.push(text);
      push({ system: record }, (index === 0 ? messageOverheadTokens : 0) + countTokens(text), record);
    });
  } else if (body.system !== undefined && body.system !== null) {
    throw invalid('system: expected a string or an array of text blocks');
  }

  const turns: Turn[] = [];
  const messages = body.messages as unknown[];
  messages.forEach((message, messageIndex) => {
    const where = `messages.${messageIndex}`;
    const record = requireRecord(message, where);
    const role = record.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'system') throw invalid(`${where}.role: Input should be 'user', 'assistant' or 'system'`);
    const content = record.content;
    const isFinalAssistant = role === 'assistant' && messageIndex === messages.length - 1;
    if ((typeof content === 'string' && content.length === 0) || (Array.isArray(content) && content.length === 0)) {
      if (!isFinalAssistant) throw invalid(`${where}: all messages must have non-empty content except for the optional final assistant message`);
    }
    // SDK types since 0.137 allow system entries in `messages`: counted like the top-level system.
    if (role === 'system') {
      const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((block) => (isRecord(block) && typeof block.text === 'string' ? block.text : '')).join('') : '';
      instructions.push(text);
      push({ role, content }, messageOverheadTokens + countTokens(text), null);
      return;
    }
    const previous = turns[turns.length - 1];
    const turn: Turn =
      previous && previous.role === role ? previous : { role, firstMessage: messageIndex, toolCallIds: [], toolResultIds: [], blockTypes: [], texts: [], images: 0, toolResults: [] };
    if (turn !== previous) turns.push(turn);
    if (typeof content === 'string') {
      turn.texts.push(content);
      turn.blockTypes.push('text');
      push({ role, content }, messageOverheadTokens + countTokens(content), null);
      return;
    }
    if (!Array.isArray(content)) throw invalid(`${where}.content: expected a string or an array of content blocks`);
    content.forEach((block: unknown, blockIndex) => {
      const at = `${where}.content.${blockIndex}`;
      const item = requireRecord(block, at);
      const type = item.type;
      let tokens = blockIndex === 0 ? messageOverheadTokens : 0;
      const misplaced = () => invalid(`${at}.type: blocks of type "${String(type)}" are not allowed in ${role} messages`);
      switch (type) {
        case 'text': {
          const text = requireString(item.text, `${at}.text`);
          if (text.trim().length === 0) throw invalid(`${where}: text content blocks must contain non-whitespace text`);
          turn.texts.push(text);
          tokens += countTokens(text);
          break;
        }
        case 'image':
          if (role !== 'user') throw misplaced();
          readImageSource(item.source, at);
          turn.images++;
          tokens += imageTokens;
          break;
        case 'tool_result': {
          if (role !== 'user') throw misplaced();
          turn.toolResultIds.push(requireString(item.tool_use_id, `${at}.tool_use_id`));
          const result = readToolResultContent(item.content, at);
          turn.toolResults.push(result.text);
          tokens += result.tokens;
          break;
        }
        case 'tool_use': {
          if (role !== 'assistant') throw misplaced();
          turn.toolCallIds.push(requireString(item.id, `${at}.id`));
          tokens += countTokens(requireString(item.name, `${at}.name`)) + countTokens(JSON.stringify(requireRecord(item.input, `${at}.input`)));
          break;
        }
        case 'thinking': {
          if (role !== 'assistant') throw misplaced();
          const text = requireString(item.thinking, `${at}.thinking`);
          if (!isValidThinkingSignature(signingSecret, text, item.signature)) throw invalid('thinking block signature is invalid');
          tokens += countTokens(text);
          break;
        }
        case 'redacted_thinking':
          if (role !== 'assistant') throw misplaced();
          tokens += countTokens(requireString(item.data, `${at}.data`));
          break;
        default:
          // document, search_result, server tool blocks…: accepted and counted by their JSON.
          tokens += countTokens(stableJson(item));
      }
      turn.blockTypes.push(String(type));
      push({ role, block: item }, tokens, item);
    });
  });

  // Automatic caching (top-level cache_control): a breakpoint on the last block of the prompt.
  if (isRecord(body.cache_control) && segments.length > 0) {
    const last = segments[segments.length - 1]!;
    if (!last.breakpoint) {
      segments[segments.length - 1] = { ...last, breakpoint: true };
      breakpoints++;
    }
  }
  if (breakpoints > maxBreakpoints) throw invalid(`A maximum of ${maxBreakpoints} blocks with cache_control may be provided. Found ${breakpoints}.`);

  const problem = checkToolPairing(turns);
  if (problem) {
    const at = turns[problem.turn]!.firstMessage;
    throw problem.kind === 'missing_result'
      ? invalid(`messages.${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${problem.ids.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`)
      : invalid(`messages.${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${problem.ids.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
  }
  const lastAssistant = [...turns].reverse().find((turn) => turn.role === 'assistant');
  if (thinking.enabled && lastAssistant && lastAssistant.toolCallIds.length > 0 && lastAssistant.blockTypes[0] !== 'thinking' && lastAssistant.blockTypes[0] !== 'redacted_thinking') {
    throw invalid(
      `messages.${lastAssistant.firstMessage}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${lastAssistant.blockTypes[0]}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`,
    );
  }

  const { choice, parallel } = readToolChoice(body.tool_choice, tools);
  const format = readOutputFormat(body);
  if (body.stop_sequences !== undefined && body.stop_sequences !== null && (!Array.isArray(body.stop_sequences) || !body.stop_sequences.every((item) => typeof item === 'string'))) {
    throw invalid('stop_sequences: expected an array of strings');
  }
  const lastTurn = turns[turns.length - 1];
  const lastUser = [...turns].reverse().find((turn) => turn.role === 'user');
  const endsWithUser = lastTurn?.role === 'user';
  const prompt: SimPrompt = {
    userText: lastUser?.texts.join('\n') ?? '',
    instructions: instructions.join('\n'),
    images: lastUser?.images ?? 0,
    toolResults: endsWithUser && lastTurn.toolResultIds.length > 0 ? lastTurn.toolResults : null,
    endsWithUser,
    tools,
    toolChoice: choice,
    parallelToolCalls: parallel,
    maxTokens,
    stop: (body.stop_sequences as string[] | undefined) ?? [],
    reasoningTokens: thinking.tokens,
    canRedact: true,
    search: model.includes('search') || model.includes('sonar'),
    seed,
    ...(format ? { format } : {}),
  };
  return {
    model,
    stream: optionalBoolean(body.stream, 'stream') ?? false,
    prompt,
    totalTokens: segments.reduce((sum, segment) => sum + segment.tokens, 0),
    segments,
    breakpoints,
  };
}
