// Reads an OpenAI Chat Completions request: validates what OpenAI itself rejects, counts the
// prompt tokens, and reduces the conversation to the SimPrompt the answer is planned from.
// Also the automatic prefix cache of the OpenAI endpoint (every prefix of >= 64 tokens).
import { checkToolPairing, type PairingTurn } from './conversation.js';
import { invalid } from './errors.js';
import { isRecord, optionalBoolean, optionalPositiveInteger, requireRecord, requireString, type JsonObject } from './guards.js';
import { PrefixHasher, type PrefixCache } from './prefix-cache.js';
import type { SimFormat, SimPrompt, SimTool, SimToolChoice } from './script.js';
import { countTokens, countToolTokens, imageTokens, messageOverheadTokens } from './tokens.js';

export interface ParsedChatRequest {
  readonly model: string;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  /** DeepSeek-style `reasoning_content` instead of hidden reasoning. */
  readonly showReasoning: boolean;
  readonly prompt: SimPrompt;
  readonly promptTokens: number;
  /** For the prefix cache: the JSON and the tokens of the tools and of each message. */
  readonly toolsJson: string;
  readonly toolsTokens: number;
  readonly messages: readonly JsonObject[];
  readonly messageTokens: readonly number[];
}

/** Reasoning tokens per effort, for models that reason. */
const effortTokens: Record<string, number> = { minimal: 16, low: 24, medium: 40, high: 64, xhigh: 96, max: 128 };
const roles = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
/** OpenAI caches only prompts from this size on (their real threshold is 1024; ours is small to keep tests small). */
export const minimumCachedPrefixTokens = 64;

interface Turn extends PairingTurn {
  readonly role: 'user' | 'assistant';
  readonly toolCallIds: string[];
  readonly toolResultIds: string[];
  texts: string[];
  images: number;
  toolResults: string[];
}

/** Text and image count of a content value (string or parts). */
function readContent(content: unknown, param: string, allowImages: boolean): { texts: string[]; images: number; tokens: number } {
  if (content === undefined || content === null) return { texts: [], images: 0, tokens: 0 };
  if (typeof content === 'string') return { texts: [content], images: 0, tokens: countTokens(content) };
  if (!Array.isArray(content)) throw invalid(`${param}: expected a string or an array of content parts`, param);
  const texts: string[] = [];
  let images = 0;
  let tokens = 0;
  content.forEach((part: unknown, index) => {
    const where = `${param}[${index}]`;
    const record = requireRecord(part, where);
    switch (record.type) {
      case 'text':
        texts.push(requireString(record.text, `${where}.text`));
        tokens += countTokens(record.text as string);
        break;
      case 'refusal':
        tokens += countTokens(requireString(record.refusal, `${where}.refusal`));
        break;
      case 'image_url':
      case 'input_audio':
      case 'file':
        if (!allowImages) throw invalid(`${where}: content part type "${String(record.type)}" is only allowed in user messages`, where);
        if (record.type === 'image_url') {
          requireString(requireRecord(record.image_url, `${where}.image_url`).url, `${where}.image_url.url`);
          images++;
        }
        tokens += imageTokens;
        break;
      default:
        throw invalid(`${where}.type: invalid content part type ${JSON.stringify(record.type)}`, `${where}.type`);
    }
  });
  return { texts, images, tokens };
}

function readToolChoice(value: unknown, tools: readonly SimTool[]): SimToolChoice {
  if (value === undefined || value === null || value === 'auto') return { type: 'auto' };
  if (value === 'none' || value === 'required') return { type: value };
  if (isRecord(value) && value.type === 'function' && isRecord(value.function) && typeof value.function.name === 'string') {
    const name = value.function.name;
    if (!tools.some((tool) => tool.name === name)) throw invalid(`tool_choice: no function named "${name}" in tools`, 'tool_choice');
    return { type: 'tool', name };
  }
  if (isRecord(value) && value.type === 'allowed_tools') return { type: 'auto' };
  throw invalid('tool_choice: expected "none", "auto", "required" or {"type": "function", "function": {"name"}}', 'tool_choice');
}

/** response_format as OpenAI checks it: text (no format), json_object, or json_schema with a name. */
function readResponseFormat(value: unknown): SimFormat | undefined {
  if (value === undefined || value === null) return undefined;
  const record = requireRecord(value, 'response_format');
  switch (record.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const spec = requireRecord(record.json_schema, 'response_format.json_schema');
      requireString(spec.name, 'response_format.json_schema.name');
      if (spec.schema !== undefined && !isRecord(spec.schema)) throw invalid('response_format.json_schema.schema: expected an object', 'response_format.json_schema.schema');
      return { type: 'json_schema', schema: spec.schema ?? { type: 'object' } };
    }
    default:
      throw invalid(`response_format.type: expected 'text', 'json_object' or 'json_schema'`, 'response_format.type');
  }
}

function readStop(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.length <= 4 && value.every((item) => typeof item === 'string')) return value as string[];
  throw invalid('stop: expected a string or an array of up to 4 strings', 'stop');
}

export function parseChatRequest(body: unknown, seed: string, flavorHeader: string | undefined): ParsedChatRequest {
  if (!isRecord(body)) throw invalid('the request body must be a JSON object');
  if (typeof body.model !== 'string' || body.model.length === 0) throw invalid('you must provide a model parameter', 'model');
  const model = body.model;
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalid('messages: expected a non-empty array', 'messages');

  const tools: SimTool[] = [];
  let toolsTokens = 0;
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw invalid('tools: expected an array', 'tools');
    body.tools.forEach((tool: unknown, index) => {
      const record = requireRecord(tool, `tools[${index}]`);
      if (record.type === 'function') {
        const fn = requireRecord(record.function, `tools[${index}].function`);
        const name = requireString(fn.name, `tools[${index}].function.name`);
        tools.push({ name, schema: fn.parameters ?? { type: 'object', properties: {} } });
        toolsTokens += countToolTokens(name, typeof fn.description === 'string' ? fn.description : undefined, fn.parameters);
      } else {
        toolsTokens += countTokens(JSON.stringify(record));
      }
    });
  }

  const messages = body.messages as unknown[];
  const messageTokens: number[] = [];
  const turns: Turn[] = [];
  const instructions: string[] = []; // system and developer texts
  const turnFor = (role: 'user' | 'assistant'): Turn => {
    const last = turns[turns.length - 1];
    if (last && last.role === role) return last;
    const turn: Turn = { role, toolCallIds: [], toolResultIds: [], texts: [], images: 0, toolResults: [] };
    turns.push(turn);
    return turn;
  };
  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    const record = requireRecord(message, param);
    const role = record.role;
    if (typeof role !== 'string' || !roles.has(role)) throw invalid(`${param}.role: invalid role ${JSON.stringify(role)}`, `${param}.role`);
    const content = readContent(record.content, `${param}.content`, role === 'user');
    let tokens = messageOverheadTokens + content.tokens;
    if (role === 'system' || role === 'developer') instructions.push(...content.texts);
    if (role === 'user') {
      const turn = turnFor('user');
      turn.texts.push(...content.texts);
      turn.images += content.images;
    } else if (role === 'tool') {
      const id = requireString(record.tool_call_id, `${param}.tool_call_id`);
      const turn = turnFor('user');
      turn.toolResultIds.push(id);
      turn.toolResults.push(content.texts.join(''));
    } else if (role === 'assistant') {
      const turn = turnFor('assistant');
      if (record.tool_calls !== undefined && record.tool_calls !== null) {
        if (!Array.isArray(record.tool_calls)) throw invalid(`${param}.tool_calls: expected an array`, `${param}.tool_calls`);
        record.tool_calls.forEach((call: unknown, callIndex) => {
          const where = `${param}.tool_calls[${callIndex}]`;
          const callRecord = requireRecord(call, where);
          const fn = requireRecord(callRecord.function, `${where}.function`);
          turn.toolCallIds.push(requireString(callRecord.id, `${where}.id`));
          tokens += countTokens(requireString(fn.name, `${where}.function.name`)) + countTokens(requireString(fn.arguments, `${where}.function.arguments`));
        });
      }
    }
    messageTokens.push(tokens);
  });

  const problem = checkToolPairing(turns);
  if (problem?.kind === 'missing_result') {
    throw invalid(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${problem.ids.join(', ')}`,
      'messages',
    );
  }
  if (problem?.kind === 'unexpected_result') {
    throw invalid(`Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (${problem.ids.join(', ')})`, 'messages');
  }

  const toolChoice = readToolChoice(body.tool_choice, tools);
  const format = readResponseFormat(body.response_format);
  // The schema is part of the prompt OpenAI bills.
  const formatTokens = format?.type === 'json_schema' ? countTokens(JSON.stringify(format.schema)) : 0;
  const maxTokens = optionalPositiveInteger(body.max_completion_tokens, 'max_completion_tokens') ?? optionalPositiveInteger(body.max_tokens, 'max_tokens');
  const effort = body.reasoning_effort;
  if (effort !== undefined && effort !== null && (typeof effort !== 'string' || (effort !== 'none' && !(effort in effortTokens)))) {
    throw invalid(`reasoning_effort: invalid value ${JSON.stringify(effort)}`, 'reasoning_effort');
  }
  const reasons = model.includes('reasoning') && typeof effort === 'string' && effort !== 'none';
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : {};
  const lastUser = [...turns].reverse().find((turn) => turn.role === 'user');
  const lastTurn = turns[turns.length - 1];
  const endsWithUser = lastTurn?.role === 'user';

  const prompt: SimPrompt = {
    userText: lastUser?.texts.join('\n') ?? '',
    instructions: instructions.join('\n'),
    images: lastUser?.images ?? 0,
    toolResults: endsWithUser && lastTurn.toolResultIds.length > 0 ? lastTurn.toolResults : null,
    endsWithUser,
    tools,
    toolChoice,
    parallelToolCalls: optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls') ?? true,
    maxTokens,
    stop: readStop(body.stop),
    reasoningTokens: reasons ? effortTokens[effort as string]! : 0,
    canRedact: false,
    search: model.includes('search') || model.includes('sonar'),
    seed,
    ...(format ? { format } : {}),
  };
  return {
    model,
    stream: optionalBoolean(body.stream, 'stream') ?? false,
    includeUsage: streamOptions.include_usage === true,
    showReasoning: model.includes('compat') || flavorHeader === 'compatible',
    prompt,
    promptTokens: toolsTokens + formatTokens + messageTokens.reduce((sum, tokens) => sum + tokens, 0),
    toolsJson: body.tools === undefined ? '' : JSON.stringify(body.tools),
    toolsTokens,
    messages: messages as JsonObject[],
    messageTokens,
  };
}

/**
 * OpenAI's automatic prompt caching: the longest cached prefix ending at a message boundary
 * (tools first, then messages; the last message is never part of it) counts as cached, and
 * this request's whole prefix is remembered for the next one.
 */
export function cachedPromptTokens(cache: PrefixCache, parsed: ParsedChatRequest): number {
  const boundaries = parsed.messages.length - 1;
  let tokens = parsed.toolsTokens;
  // Nothing to do for short prompts (most benchmark traffic): no hashing at all.
  let total = tokens;
  for (let index = 0; index < boundaries; index++) total += parsed.messageTokens[index]!;
  if (total < minimumCachedPrefixTokens) return 0;
  const hasher = new PrefixHasher('openai-chat', parsed.model).update(parsed.toolsJson);
  let cached = 0;
  let lastKey: string | undefined;
  for (let index = 0; index < boundaries; index++) {
    hasher.update(JSON.stringify(parsed.messages[index]));
    tokens += parsed.messageTokens[index]!;
    if (tokens < minimumCachedPrefixTokens) continue;
    lastKey = hasher.key();
    const hit = cache.lookup(lastKey);
    if (hit > 0) cached = hit;
  }
  if (lastKey !== undefined) cache.store(lastKey, total);
  return cached;
}
