// POST /v1/responses body → ChatRequest. Non-strict (unknown fields are ignored), 422 with
// FastAPI-style details otherwise. The endpoint is stateless: the client sends the whole
// conversation in `input` (previous_response_id, store: true and conversation would need
// stored responses and are refused with a message that says so); `item_reference` items were
// replaced by the pipeline with the items they name, so one that is left names an unknown id.
//
// Input items map onto turns: user messages and function_call_output items are the user
// side; assistant messages, function_call and reasoning items the assistant side;
// consecutive items of one side make one turn. system/developer messages join
// `instructions` in ChatRequest.system, in order.
import { z } from 'zod';
import { acceptedReasoningEfforts, normalizeReasoningEffort } from '../../model/reasoning.js';
import type {
  AssistantContentPart,
  ChatMessage,
  ChatRequest,
  ImagePart,
  TextPart,
  ToolChoice,
  ToolDefinition,
  UserContentPart,
} from '../../model/chat.js';
import { invalid, RequestValidationError, toDetail, validate, type ValidationDetail } from '../../validation/zod-details.js';
import { byJsonType } from '../shared/json-type-union.js';
import { decodeFlatFormat, flatFormatSchema } from '../shared/response-format.js';
import { redactedPrefix } from './items.js';

type Loc = (string | number)[];

const bodySchema = z.object({
  model: z.string().min(1),
  input: z.unknown().optional(),
  instructions: z.string().nullish(),
  tools: z.array(z.unknown()).nullish(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.int().min(1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  // The spec's names with OpenAI's `xhigh` (a level of its own), and `none` as an alias of `off`.
  reasoning: z.object({ effort: z.enum(acceptedReasoningEfforts).nullish() }).nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  stream: z.boolean().nullish(),
  // The spec allows a string (plain text output, as no `format` means) or the object.
  text: byJsonType({ string: z.string(), object: z.object({ format: flatFormatSchema.nullish() }) }, 'a string or an object').nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  conversation: z.unknown().optional(),
  background: z.boolean().nullish(),
  // OpenAI's limits: at most 16 pairs, keys up to 64 characters, values up to 512.
  metadata: z
    .record(z.string().max(64), z.string().max(512))
    .refine((pairs) => Object.keys(pairs).length <= 16, { message: 'metadata may hold at most 16 key-value pairs' })
    .nullish(),
});

const statelessHint = 'this endpoint is stateless: send the full conversation in `input`';

const functionToolSchema = z.object({
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

const messageSchema = z.object({ role: z.enum(['user', 'assistant', 'system', 'developer']), content: z.unknown().optional() });
const functionCallSchema = z.object({ call_id: z.string().min(1), name: z.string().min(1), arguments: z.string() });
const functionCallOutputSchema = z.object({ call_id: z.string().min(1), output: z.unknown().optional() });
const reasoningSchema = z.object({
  summary: z.array(z.object({ text: z.string() })).nullish(),
  content: z.array(z.object({ text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
});
const textPartSchema = z.object({ text: z.string() });
const refusalPartSchema = z.object({ refusal: z.string() });
const imagePartSchema = z.object({ image_url: z.string().nullish(), file_id: z.string().nullish(), detail: z.string().nullish() });

/** Collects 422 details across the items so that one response names every problem. */
class Problems {
  readonly details: ValidationDetail[] = [];

  parse<S extends z.ZodType>(schema: S, value: unknown, loc: Loc): z.output<S> | undefined {
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      const detail = toDetail(issue, 'body');
      this.details.push({ ...detail, loc: [...loc, ...detail.loc.slice(1)] });
    }
    return undefined;
  }

  add(loc: Loc, msg: string, input?: unknown, type = 'value_error'): void {
    this.details.push(...invalid(loc, msg, input, type).details);
  }

  throwIfAny(): void {
    if (this.details.length > 0) throw new RequestValidationError(this.details);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeImage(value: unknown, loc: Loc, problems: Problems): ImagePart | undefined {
  const part = problems.parse(imagePartSchema, value, loc);
  if (!part) return undefined;
  const detail = part.detail ? { detail: part.detail } : {};
  const url = part.image_url;
  if (!url) {
    if (part.file_id) problems.add([...loc, 'file_id'], 'file_id images are not supported: send image_url as an http(s) URL or a base64 data: URL', part.file_id);
    else problems.add([...loc, 'image_url'], 'Field required', undefined, 'missing');
    return undefined;
  }
  if (url.startsWith('data:')) {
    const match = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(url);
    if (!match || !match[2].split(';').includes('base64') || !match[3]) {
      problems.add([...loc, 'image_url'], 'image data URLs must look like data:<media type>;base64,<data>', url.slice(0, 64));
      return undefined;
    }
    return { type: 'image', ...(match[1] ? { mediaType: match[1] } : {}), data: match[3], ...detail };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', url, ...detail };
  problems.add([...loc, 'image_url'], 'image_url must be an http(s) URL or a base64 data: URL', url.slice(0, 64));
  return undefined;
}

/**
 * Message content (or a function_call_output's output): a string or a list of parts. Output
 * parts (`output_text`, `refusal`) are accepted anywhere as text, since clients replay them;
 * their annotations and logprobs are ignored.
 */
function decodeContent(value: unknown, loc: Loc, problems: Problems, images: boolean): (TextPart | ImagePart)[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (value === undefined) {
    problems.add(loc, 'Field required', undefined, 'missing');
    return [];
  }
  if (!Array.isArray(value)) {
    problems.add(loc, 'Input should be a valid string or a list of content parts', value, 'value_error');
    return [];
  }
  const parts: (TextPart | ImagePart)[] = [];
  value.forEach((raw, index) => {
    const partLoc = [...loc, index];
    if (!isRecord(raw)) {
      problems.add(partLoc, 'Input should be a valid dictionary', raw, 'dict_type');
      return;
    }
    switch (raw.type) {
      case 'input_text':
      case 'output_text': {
        const part = problems.parse(textPartSchema, raw, partLoc);
        if (part) parts.push({ type: 'text', text: part.text });
        break;
      }
      case 'refusal': {
        const part = problems.parse(refusalPartSchema, raw, partLoc);
        if (part) parts.push({ type: 'text', text: part.refusal });
        break;
      }
      case 'input_image': {
        if (!images) {
          problems.add([...partLoc, 'type'], 'images are accepted only in user messages and function_call_output items', raw.type);
          break;
        }
        const image = decodeImage(raw, partLoc, problems);
        if (image) parts.push(image);
        break;
      }
      case undefined:
        problems.add([...partLoc, 'type'], 'Field required', undefined, 'missing');
        break;
      default:
        problems.add([...partLoc, 'type'], `content part type '${String(raw.type)}' is not supported; use input_text or input_image`, raw.type);
    }
  });
  return parts;
}

interface Decoded {
  system: TextPart[];
  messages: ChatMessage[];
}

function decodeInput(input: unknown, problems: Problems): Decoded {
  const loc: Loc = ['body', 'input'];
  if (typeof input === 'string') return { system: [], messages: [{ role: 'user', content: [{ type: 'text', text: input }] }] };
  if (input === undefined || input === null) {
    problems.add(loc, 'Field required', undefined, 'missing');
    return { system: [], messages: [] };
  }
  if (!Array.isArray(input)) {
    problems.add(loc, 'Input should be a valid string or a list of input items', input, 'value_error');
    return { system: [], messages: [] };
  }
  const system: TextPart[] = [];
  const messages: { role: 'user' | 'assistant'; content: (UserContentPart | AssistantContentPart)[] }[] = [];
  const push = (role: 'user' | 'assistant', content: (UserContentPart | AssistantContentPart)[]) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...content);
    else messages.push({ role, content: [...content] });
  };

  input.forEach((item, index) => {
    const itemLoc = [...loc, index];
    if (!isRecord(item)) {
      problems.add(itemLoc, 'Input should be a valid dictionary', item, 'dict_type');
      return;
    }
    const type = item.type ?? ('role' in item ? 'message' : undefined);
    switch (type) {
      case 'message': {
        const message = problems.parse(messageSchema, item, itemLoc);
        if (!message) return;
        const contentLoc = [...itemLoc, 'content'];
        if (message.role === 'user') push('user', decodeContent(message.content, contentLoc, problems, true));
        else if (message.role === 'assistant') push('assistant', decodeContent(message.content, contentLoc, problems, false) as TextPart[]);
        else system.push(...(decodeContent(message.content, contentLoc, problems, false) as TextPart[]));
        return;
      }
      case 'function_call': {
        const call = problems.parse(functionCallSchema, item, itemLoc);
        if (call) push('assistant', [{ type: 'tool_call', id: call.call_id, name: call.name, arguments: call.arguments }]);
        return;
      }
      case 'function_call_output': {
        const output = problems.parse(functionCallOutputSchema, item, itemLoc);
        if (!output) return;
        push('user', [{ type: 'tool_result', toolCallId: output.call_id, content: decodeContent(output.output, [...itemLoc, 'output'], problems, true) }]);
        return;
      }
      case 'reasoning': {
        const reasoning = problems.parse(reasoningSchema, item, itemLoc);
        if (!reasoning) return;
        const encrypted = reasoning.encrypted_content ?? undefined;
        if (encrypted?.startsWith(redactedPrefix)) {
          push('assistant', [{ type: 'redacted_reasoning', data: encrypted.slice(redactedPrefix.length) }]);
          return;
        }
        const summary = reasoning.summary ?? [];
        const text = (summary.length > 0 ? summary : (reasoning.content ?? [])).map((part) => part.text).join('\n\n');
        // An item with neither text nor encrypted content carries nothing an upstream could use.
        if (text || encrypted) push('assistant', [{ type: 'reasoning', text, ...(encrypted ? { signature: encrypted } : {}) }]);
        return;
      }
      case 'item_reference': {
        // The pipeline replaced every reference it could (item-references.ts) and refused unknown ids.
        const reference = problems.parse(z.object({ id: z.string().min(1) }), item, itemLoc);
        if (reference) problems.add([...itemLoc, 'id'], `item_reference '${reference.id}' was not resolved: send the item itself instead of a reference`, reference.id);
        return;
      }
      case undefined:
        problems.add([...itemLoc, 'type'], 'Field required', undefined, 'missing');
        return;
      default:
        problems.add([...itemLoc, 'type'], `input item type '${String(type)}' is not supported; use message, function_call, function_call_output or reasoning items`, type);
    }
  });
  if (input.length > 0 && messages.length === 0 && problems.details.length === 0) {
    problems.add(loc, 'input must contain at least one user or assistant item');
  }
  if (input.length === 0) problems.add(loc, 'List should have at least 1 item', input, 'too_short');
  return { system, messages: messages as ChatMessage[] };
}

function decodeTools(tools: readonly unknown[], problems: Problems): ToolDefinition[] {
  const decoded: ToolDefinition[] = [];
  tools.forEach((tool, index) => {
    const loc: Loc = ['body', 'tools', index];
    if (!isRecord(tool)) return problems.add(loc, 'Input should be a valid dictionary', tool, 'dict_type');
    if (tool.type === undefined) return problems.add([...loc, 'type'], 'Field required', undefined, 'missing');
    if (tool.type !== 'function') {
      return problems.add([...loc, 'type'], `tool type '${String(tool.type)}' is not supported: only function tools are`, tool.type);
    }
    const fn = problems.parse(functionToolSchema, tool, loc);
    if (!fn) return;
    decoded.push({
      name: fn.name,
      ...(fn.description != null ? { description: fn.description } : {}),
      // A function without a schema takes no arguments.
      parameters: fn.parameters ?? { type: 'object', properties: {} },
      ...(fn.strict != null ? { strict: fn.strict } : {}),
    });
  });
  return decoded;
}

function decodeToolChoice(value: unknown, tools: readonly ToolDefinition[], problems: Problems): ToolChoice | undefined {
  const loc: Loc = ['body', 'tool_choice'];
  if (value === undefined || value === null) return undefined;
  if (value === 'none' || value === 'auto' || value === 'required') return { type: value };
  if (typeof value === 'string') {
    problems.add(loc, "Input should be 'none', 'auto', 'required' or {type: 'function', name}", value, 'enum');
    return undefined;
  }
  if (!isRecord(value)) {
    problems.add(loc, "Input should be 'none', 'auto', 'required' or {type: 'function', name}", value);
    return undefined;
  }
  if (value.type !== 'function') {
    problems.add([...loc, 'type'], `tool_choice type '${String(value.type)}' is not supported; use 'none', 'auto', 'required' or {type: 'function', name}`, value.type);
    return undefined;
  }
  const named = problems.parse(z.object({ name: z.string().min(1) }), value, loc);
  if (!named) return undefined;
  if (!tools.some((tool) => tool.name === named.name)) {
    problems.add([...loc, 'name'], `tool_choice names '${named.name}', which is not among the function tools`, named.name);
    return undefined;
  }
  return { type: 'tool', name: named.name };
}

export function decodeResponsesRequest(raw: unknown): ChatRequest {
  const body = validate(bodySchema, raw, 'body');

  // Stateless: nothing refers to stored responses or conversations.
  if (body.previous_response_id != null) {
    throw invalid(['body', 'previous_response_id'], `previous_response_id is not supported: ${statelessHint}`, body.previous_response_id);
  }
  if (body.store === true) {
    throw invalid(['body', 'store'], `store: true is not supported: ${statelessHint} (omit store or set it to false)`, true);
  }
  if (body.conversation != null) {
    throw invalid(['body', 'conversation'], `conversation is not supported: ${statelessHint}`, body.conversation);
  }
  if (body.background === true) {
    throw invalid(['body', 'background'], 'background: true is not supported: responses are not stored; stream or wait for the result', true);
  }

  const problems = new Problems();
  const tools = decodeTools(body.tools ?? [], problems);
  const toolChoice = decodeToolChoice(body.tool_choice, tools, problems);
  const { system, messages } = decodeInput(body.input, problems);
  problems.throwIfAny();

  const instructions: TextPart[] = body.instructions ? [{ type: 'text', text: body.instructions }] : [];
  const user = body.user ?? body.safety_identifier ?? undefined;
  const responseFormat = typeof body.text === 'string' ? undefined : decodeFlatFormat(body.text?.format);
  return {
    model: body.model,
    system: [...instructions, ...system],
    messages,
    tools,
    ...(toolChoice ? { toolChoice } : {}),
    ...(body.parallel_tool_calls != null ? { parallelToolCalls: body.parallel_tool_calls } : {}),
    ...(body.max_output_tokens != null ? { maxOutputTokens: body.max_output_tokens } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { topP: body.top_p } : {}),
    stop: [],
    ...(body.reasoning?.effort != null ? { reasoningEffort: normalizeReasoningEffort(body.reasoning.effort) } : {}),
    ...(user !== undefined ? { user } : {}),
    stream: body.stream ?? false,
    includeUsage: true,
    ...(responseFormat ? { responseFormat } : {}),
    ...(body.instructions != null || body.metadata != null
      ? { echo: { ...(body.instructions != null ? { instructions: body.instructions } : {}), ...(body.metadata != null ? { metadata: body.metadata } : {}) } }
      : {}),
  };
}
