// Decodes an Anthropic Messages request body into the internal ChatRequest.
//   system (string or text blocks) and role "system" entries of `messages` → ChatRequest.system;
//   user/assistant turns keep their blocks in order (tool_use.input → JSON text arguments);
//   thinking: enabled → the effort whose budget covers budget_tokens, disabled → 'off',
//     adaptive → the model's default; output_config.effort, when given, names the effort directly
//     (`max` stays `max`); both are hints the pipeline fits to the model (closest level, ignored by
//     a model that does not reason); a disabled thinking wins over them.
import type {
  AssistantContentPart,
  ChatMessage,
  ChatRequest,
  DocumentPart,
  ImagePart,
  ReasoningEffort,
  ResponseFormat,
  TextPart,
  ToolChoice,
  UserContentPart,
} from '../../model/chat.js';
import { effortForBudget, normalizeReasoningEffort } from '../../model/reasoning.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { withoutUndefined } from '../shared/objects.js';
import { defaultFormatName } from '../shared/response-format.js';
import { countTokensRequestSchema, messagesRequestSchema, type MessagesBody, type MessagesContentBlock } from './schema.js';

type Loc = (string | number)[];

export function decodeMessagesRequest(body: unknown): ChatRequest {
  return decodeBody(validate(messagesRequestSchema, body, 'body'));
}

/** POST /v1/messages/count_tokens: the Messages body without the max_tokens requirement. */
export function decodeCountTokensRequest(body: unknown): ChatRequest {
  return { ...decodeBody(validate(countTokensRequestSchema, body, 'body')), stream: false };
}

function decodeBody(input: MessagesBody): ChatRequest {
  const system: TextPart[] = input.system == null ? [] : textParts(input.system);
  const messages: ChatMessage[] = [];
  input.messages.forEach((message, i) => {
    const loc: Loc = ['body', 'messages', i];
    if (message.role === 'system') {
      if (typeof message.content === 'string') system.push(...textParts(message.content));
      else system.push(...message.content.map((block, j) => systemBlock(block, [...loc, 'content', j])).filter((part) => part.text !== ''));
    } else if (message.role === 'user') {
      const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content } as const] : message.content;
      messages.push({ role: 'user', content: blocks.map((block, j) => userBlock(block, [...loc, 'content', j])) });
    } else {
      const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content } as const] : message.content;
      const content = blocks.flatMap((block, j) => assistantBlock(block, [...loc, 'content', j]));
      if (content.length > 0) messages.push({ role: 'assistant', content });
    }
  });

  const choice = input.tool_choice ?? undefined;
  const disableParallel = choice && choice.type !== 'none' ? choice.disable_parallel_tool_use : undefined;
  return withoutUndefined<ChatRequest>({
    model: input.model,
    system,
    messages,
    tools: (input.tools ?? []).map((tool) =>
      withoutUndefined({ name: tool.name, description: tool.description ?? undefined, parameters: tool.input_schema, strict: tool.strict ?? undefined }),
    ),
    toolChoice: decodeToolChoice(choice),
    parallelToolCalls: disableParallel == null ? undefined : !disableParallel,
    maxOutputTokens: input.max_tokens ?? undefined,
    temperature: input.temperature ?? undefined,
    topP: input.top_p ?? undefined,
    stop: input.stop_sequences ?? [],
    reasoningEffort: decodeEffort(input),
    // A thinking budget is a hint too: Anthropic's models that do not think ignore it, and Claude
    // Code sends one by default; the budget is served at the model's closest level.
    reasoningEffortIsHint: input.thinking?.type === 'enabled' || (input.thinking?.type !== 'disabled' && input.output_config?.effort != null) ? true : undefined,
    user: input.metadata?.user_id ?? undefined,
    stream: input.stream ?? false,
    includeUsage: false,
    responseFormat: decodeOutputFormat(input),
  });
}

/** output_config.format, else the beta's output_format (the SDK's parser reads them in the other order; both at once is not a thing clients do). */
function decodeOutputFormat(input: MessagesBody): ResponseFormat | undefined {
  const format = input.output_config?.format ?? input.output_format;
  return format == null ? undefined : { type: 'json_schema', name: defaultFormatName, schema: format.schema };
}

function decodeEffort(input: MessagesBody): ReasoningEffort | undefined {
  if (input.thinking?.type === 'disabled') return 'off';
  const effort = input.output_config?.effort;
  if (effort != null) return normalizeReasoningEffort(effort);
  if (input.thinking?.type === 'enabled') return effortForBudget(input.thinking.budget_tokens);
  return undefined;
}

function decodeToolChoice(choice: MessagesBody['tool_choice']): ToolChoice | undefined {
  switch (choice?.type) {
    case undefined:
      return undefined;
    case 'auto':
    case 'none':
      return { type: choice.type };
    case 'any':
      return { type: 'required' };
    case 'tool':
      return { type: 'tool', name: choice.name };
  }
}

function textParts(system: string | readonly { text: string }[]): TextPart[] {
  const parts: TextPart[] = typeof system === 'string' ? [{ type: 'text', text: system }] : system.map((b) => ({ type: 'text', text: b.text }));
  return parts.filter((p) => p.text !== '');
}

function notHere(block: MessagesContentBlock, loc: Loc, where: string): never {
  throw invalid([...loc, 'type'], `${block.type} blocks are not allowed in ${where}`, block.type);
}

function unsupported(block: { type: string }, loc: Loc): never {
  throw invalid([...loc, 'type'], `${block.type} blocks are not supported yet`, block.type);
}

function systemBlock(block: MessagesContentBlock, loc: Loc): TextPart {
  if (block.type !== 'text') notHere(block, loc, 'system messages');
  return { type: 'text', text: block.text };
}

function image(block: Extract<MessagesContentBlock, { type: 'image' }>, loc: Loc): ImagePart {
  const source = block.source;
  if (source.type === 'base64') return { type: 'image', mediaType: source.media_type, data: source.data };
  if (source.type === 'url') return { type: 'image', url: source.url };
  throw invalid([...loc, 'source', 'type'], "image sources of type 'file' are not supported; send base64 data or a url", source.type);
}

function document(block: Extract<MessagesContentBlock, { type: 'document' }>, loc: Loc): DocumentPart {
  const source = block.source;
  if (source.type !== 'base64' && source.type !== 'text') {
    throw invalid([...loc, 'source', 'type'], `document sources of type '${source.type}' are not supported; send a PDF as base64 data or plain text`, source.type);
  }
  // Citations would come back as document locations, which no dialect carries yet: refused, not silently dropped.
  if (block.citations?.enabled) throw invalid([...loc, 'citations', 'enabled'], 'citations on documents are not supported', true);
  return {
    type: 'document',
    source: source.type === 'base64' ? { type: 'base64', mediaType: source.media_type, data: source.data } : { type: 'text', text: source.data },
    ...(block.title ? { title: block.title } : {}),
    ...(block.context ? { context: block.context } : {}),
  };
}

function userBlock(block: MessagesContentBlock, loc: Loc): UserContentPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return image(block, loc);
    case 'tool_result': {
      const blocks = block.content == null ? [] : typeof block.content === 'string' ? [{ type: 'text', text: block.content } as const] : block.content;
      const content = blocks.map((inner, k): TextPart | ImagePart => {
        const innerLoc = [...loc, 'content', k];
        if (inner.type === 'text') return { type: 'text', text: inner.text };
        if (inner.type === 'image') return image(inner, innerLoc);
        if (inner.type === 'document') throw invalid([...innerLoc, 'type'], 'documents inside tool results are not supported; attach them to the user message', inner.type);
        return unsupported(inner, innerLoc);
      });
      return { type: 'tool_result', toolCallId: block.tool_use_id, content: content.filter((p) => p.type !== 'text' || p.text !== ''), ...(block.is_error ? { isError: true } : {}) };
    }
    case 'document':
      return document(block, loc);
    case 'search_result':
      return unsupported(block, loc);
    default:
      return notHere(block, loc, 'user messages');
  }
}

function assistantBlock(block: MessagesContentBlock, loc: Loc): AssistantContentPart[] {
  switch (block.type) {
    case 'text':
      return block.text === '' ? [] : [{ type: 'text', text: block.text }];
    case 'thinking':
      return [{ type: 'reasoning', text: block.thinking, ...(block.signature ? { signature: block.signature } : {}) }];
    case 'redacted_thinking':
      return [{ type: 'redacted_reasoning', data: block.data }];
    case 'tool_use':
      return [{ type: 'tool_call', id: block.id, name: block.name, arguments: JSON.stringify(block.input) }];
    default:
      return notHere(block, loc, 'assistant messages');
  }
}
