// The Anthropic Messages request body (wire-formats §2), as zod schemas. Non-strict: unknown
// fields are ignored, among them `cache_control` everywhere (the gateway places cache
// breakpoints itself), `citations` on text blocks sent back, `top_k`, `service_tier`.
// Blocks the gateway cannot carry yet (search_result, documents other than base64 PDF or plain
// text, file images, server tools) pass the schema and are refused by the decoder with their location.
import { acceptedReasoningEfforts } from '../../model/reasoning.js';
import { z } from 'zod';
import { byJsonType } from '../shared/json-type-union.js';
import { taggedUnion } from '../shared/tagged-union.js';

export const textBlock = z.object({ type: z.literal('text'), text: z.string() });

export const imageBlock = z.object({
  type: z.literal('image'),
  source: taggedUnion('type', [
    z.object({ type: z.literal('base64'), media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']), data: z.string().min(1) }),
    z.object({ type: z.literal('url'), url: z.string().min(1) }),
    z.object({ type: z.literal('file') }),
  ]),
});

// PDFs as base64 and plain text are carried; url / content / file sources pass the schema and are refused by the decoder with their location.
const documentBlock = z.object({
  type: z.literal('document'),
  source: taggedUnion('type', [
    z.object({ type: z.literal('base64'), media_type: z.literal('application/pdf'), data: z.string().min(1) }),
    z.object({ type: z.literal('text'), media_type: z.literal('text/plain'), data: z.string() }),
    z.object({ type: z.literal('url') }),
    z.object({ type: z.literal('content') }),
    z.object({ type: z.literal('file') }),
  ]),
  title: z.string().nullish(),
  context: z.string().nullish(),
  citations: z.object({ enabled: z.boolean().nullish() }).nullish(),
});
const searchResultBlock = z.object({ type: z.literal('search_result') });

const toolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: byJsonType({ string: z.string(), array: z.array(taggedUnion('type', [textBlock, imageBlock, documentBlock, searchResultBlock])) }, 'a string or a list of blocks').nullish(),
  is_error: z.boolean().nullish(),
});

const toolUseBlock = z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) });
const thinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().nullish() });
const redactedThinkingBlock = z.object({ type: z.literal('redacted_thinking'), data: z.string() });

/** Every block a message may hold; which role may hold which is checked by the decoder. */
export const contentBlock = taggedUnion('type', [
  textBlock,
  imageBlock,
  toolUseBlock,
  toolResultBlock,
  thinkingBlock,
  redactedThinkingBlock,
  documentBlock,
  searchResultBlock,
]);

const message = z.object({
  role: z.enum(['user', 'assistant', 'system']),
  content: byJsonType({ string: z.string(), array: z.array(contentBlock) }, 'a string or a list of content blocks'),
});

const systemPrompt = byJsonType({ string: z.string(), array: z.array(textBlock) }, 'a string or a list of text blocks');

const tool = z
  // Server tools (web_search_…, bash_…) carry a versioned `type`; only custom tools are served.
  .object({ type: z.literal('custom').nullish() })
  .loose()
  .pipe(
    z.object({
      name: z.string().min(1),
      description: z.string().nullish(),
      input_schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().nullish(),
    }),
  );

const toolChoice = taggedUnion('type', [
  z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.object({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().nullish() }),
  z.object({ type: z.literal('none') }),
]);

const thinking = taggedUnion('type', [
  z.object({ type: z.literal('enabled'), budget_tokens: z.number().int().positive() }),
  z.object({ type: z.literal('disabled') }),
  z.object({ type: z.literal(['adaptive', 'between_tools']) }),
]);

/** Anthropic structured output: the only format type is json_schema, and its schema is required. */
const outputFormat = z.object({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) });

const outputConfig = z.object({
  // A hint (coding agents send it on every request): every spec name and alias is accepted.
  effort: z.enum(acceptedReasoningEfforts).nullish(),
  format: outputFormat.nullish(),
});

const commonFields = {
  model: z.string().min(1),
  messages: z.array(message).min(1),
  system: systemPrompt.nullish(),
  tools: z.array(tool).nullish(),
  tool_choice: toolChoice.nullish(),
  stop_sequences: z.array(z.string()).nullish(),
  temperature: z.number().min(0).max(1).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  thinking: thinking.nullish(),
  output_config: outputConfig.nullish(),
  /** The structured-outputs beta's field (SDK `beta.messages`), since replaced by output_config.format. */
  output_format: outputFormat.nullish(),
  metadata: z.object({ user_id: z.string().nullish() }).loose().nullish(),
};

/** POST /v1/messages: max_tokens is required. */
export const messagesRequestSchema = z.object({
  ...commonFields,
  max_tokens: z.number().int().positive(),
  stream: z.boolean().nullish(),
});

/** POST /v1/messages/count_tokens: the same body, max_tokens and stream not needed. */
export const countTokensRequestSchema = z.object({
  ...commonFields,
  max_tokens: z.number().int().positive().nullish(),
});

export type MessagesBody = z.output<typeof countTokensRequestSchema> & { stream?: boolean | null };
export type MessagesContentBlock = z.output<typeof contentBlock>;
