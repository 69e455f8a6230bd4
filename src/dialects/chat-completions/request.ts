// Decodes a Chat Completions request body into the internal ChatRequest.
//   system/developer messages → ChatRequest.system, in order;
//   tool messages → tool_result parts of a user turn (consecutive ones, and a user message
//     right after them, form one user turn, as Anthropic wants them);
//   assistant turns → reasoning (reasoning_details, else reasoning_content) first, then text
//     (content, refusal), then tool calls — the order in which this dialect encodes a result.
import type {
  AssistantContentPart,
  ChatMessage,
  ChatRequest,
  ImagePart,
  ReasoningEffort,
  ResponseFormat,
  TextPart,
  ToolChoice,
  UserContentPart,
} from '../../model/chat.js';
import { normalizeReasoningEffort } from '../../model/reasoning.js';
import { RequestValidationError, invalid, validate } from '../../validation/zod-details.js';
import { isDataUrl, parseDataUrl } from '../shared/data-url.js';
import { withoutUndefined } from '../shared/objects.js';
import { jsonSchemaFormat } from '../shared/response-format.js';
import { chatCompletionsRequestSchema, type ChatCompletionsBody, type ChatCompletionsMessage } from './schema.js';

type Loc = (string | number)[];

export function decodeChatCompletionsRequest(body: unknown): ChatRequest {
  const input = validate(chatCompletionsRequestSchema, body, 'body');
  if (input.n != null && input.n !== 1) {
    // One choice per request: several would multiply the upstream cost behind one hold.
    const loc = ['body', 'n'];
    throw new RequestValidationError([
      input.n > 1
        ? { loc, msg: 'Input should be less than or equal to 1 (one choice per request)', type: 'less_than_equal', input: input.n, ctx: { le: 1 } }
        : { loc, msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: input.n, ctx: { ge: 1 } },
    ]);
  }

  const system: TextPart[] = [];
  const messages: ChatMessage[] = [];
  input.messages.forEach((message, i) => decodeMessage(message, ['body', 'messages', i], system, messages));

  return withoutUndefined<ChatRequest>({
    model: input.model,
    system,
    messages,
    tools: (input.tools ?? []).map(({ function: fn }) =>
      withoutUndefined({
        name: fn.name,
        description: fn.description ?? undefined,
        parameters: fn.parameters ?? { type: 'object', properties: {} },
        strict: fn.strict ?? undefined,
      }),
    ),
    toolChoice: decodeToolChoice(input.tool_choice),
    parallelToolCalls: input.parallel_tool_calls ?? undefined,
    maxOutputTokens: input.max_completion_tokens ?? input.max_tokens ?? undefined,
    temperature: input.temperature ?? undefined,
    topP: input.top_p ?? undefined,
    stop: input.stop == null ? [] : typeof input.stop === 'string' ? [input.stop] : input.stop,
    reasoningEffort: decodeEffort(input.reasoning_effort),
    user: input.user ?? input.safety_identifier ?? undefined,
    stream: input.stream ?? false,
    includeUsage: input.stream_options?.include_usage ?? false,
    responseFormat: decodeResponseFormat(input.response_format),
  });
}

function decodeResponseFormat(format: ChatCompletionsBody['response_format']): ResponseFormat | undefined {
  if (format == null || format.type === 'text') return undefined;
  return format.type === 'json_object' ? { type: 'json_object' } : jsonSchemaFormat(format.json_schema);
}

function decodeEffort(effort: ChatCompletionsBody['reasoning_effort']): ReasoningEffort | undefined {
  return effort == null ? undefined : normalizeReasoningEffort(effort);
}

function decodeToolChoice(choice: ChatCompletionsBody['tool_choice']): ToolChoice | undefined {
  if (choice == null) return undefined;
  if (typeof choice === 'string') return { type: choice };
  return { type: 'tool', name: choice.function.name };
}

function textParts(content: string | readonly { text: string }[]): TextPart[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content.map((p) => ({ type: 'text', text: p.text }));
}

function decodeMessage(message: ChatCompletionsMessage, loc: Loc, system: TextPart[], messages: ChatMessage[]): void {
  switch (message.role) {
    case 'system':
    case 'developer':
      system.push(...textParts(message.content).filter((p) => p.text !== ''));
      return;
    case 'user': {
      const content: UserContentPart[] =
        typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content.map((part, j) => decodeUserPart(part, [...loc, 'content', j]));
      appendUserContent(messages, content);
      return;
    }
    case 'tool': {
      const text = textParts(message.content).filter((p) => p.text !== '');
      appendUserContent(messages, [{ type: 'tool_result', toolCallId: message.tool_call_id, content: text }]);
      return;
    }
    case 'assistant': {
      const content = decodeAssistant(message);
      if (content.length > 0) messages.push({ role: 'assistant', content });
      return;
    }
  }
}

/**
 * Tool results join the user turn that holds the previous tool results; a user message right
 * after tool results joins that turn too. Other user messages start a turn of their own.
 */
function appendUserContent(messages: ChatMessage[], content: UserContentPart[]): void {
  const last = messages.at(-1);
  if (last?.role === 'user' && last.content.at(-1)?.type === 'tool_result') {
    messages[messages.length - 1] = { role: 'user', content: [...last.content, ...content] };
    return;
  }
  messages.push({ role: 'user', content });
}

type UserPart = Exclude<Extract<ChatCompletionsMessage, { role: 'user' }>['content'], string>[number];

function decodeUserPart(part: UserPart, loc: Loc): UserContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url':
      return decodeImageUrl(part.image_url.url, part.image_url.detail ?? undefined, [...loc, 'image_url', 'url']);
    case 'input_audio':
    case 'file':
      throw invalid([...loc, 'type'], `'${part.type}' content parts are not supported; send text and image_url parts`, part.type);
  }
}

function decodeImageUrl(url: string, detail: string | undefined, loc: Loc): ImagePart {
  if (isDataUrl(url)) {
    const parsed = parseDataUrl(url);
    if (!parsed) throw invalid(loc, 'Invalid data URL: expected data:<media type>;base64,<data>', truncate(url), 'url_parsing');
    return withoutUndefined<ImagePart>({ type: 'image', mediaType: parsed.mediaType, data: parsed.data, detail });
  }
  if (!/^https?:\/\/[^\s/]+/i.test(url)) throw invalid(loc, "URL scheme should be 'http', 'https' or 'data'", truncate(url), 'url_scheme');
  return withoutUndefined<ImagePart>({ type: 'image', url, detail });
}

/** Long inputs (base64 payloads) are cut in error details. */
function truncate(value: string): string {
  return value.length > 100 ? `${value.slice(0, 100)}…` : value;
}

function decodeAssistant(message: Extract<ChatCompletionsMessage, { role: 'assistant' }>): AssistantContentPart[] {
  const parts: AssistantContentPart[] = [];
  if (message.reasoning_details?.length) {
    for (const detail of message.reasoning_details) {
      if (detail.type === 'reasoning.encrypted') parts.push({ type: 'redacted_reasoning', data: detail.data });
      else if (detail.type === 'reasoning.text') parts.push({ type: 'reasoning', text: detail.text, ...(detail.signature ? { signature: detail.signature } : {}) });
      else parts.push({ type: 'reasoning', text: detail.summary });
    }
  } else if (message.reasoning_content) {
    parts.push({ type: 'reasoning', text: message.reasoning_content });
  }

  let refusalInContent = false;
  if (typeof message.content === 'string') {
    if (message.content !== '') parts.push({ type: 'text', text: message.content });
  } else if (message.content) {
    for (const part of message.content) {
      const text = part.type === 'text' ? part.text : part.refusal;
      refusalInContent ||= part.type === 'refusal';
      if (text !== '') parts.push({ type: 'text', text });
    }
  }
  // A refusal has no internal part: the model sees what it said as text.
  if (message.refusal && !refusalInContent) parts.push({ type: 'text', text: message.refusal });

  for (const call of message.tool_calls ?? []) {
    parts.push({ type: 'tool_call', id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
  return parts;
}
