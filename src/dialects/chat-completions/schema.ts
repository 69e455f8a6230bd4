// The OpenAI Chat Completions request body (wire-formats §1), as zod schemas. Non-strict:
// unknown fields are ignored, as OpenAI ignores them. Nullable fields accept null (Python
// clients send None), which decodes like an absent field. Parts of the body that are
// accepted by the schema but not by the gateway (audio and file parts)
// are refused by the decoder with a precise location.
import { acceptedReasoningEfforts } from '../../model/reasoning.js';
import { z } from 'zod';
import { byJsonType } from '../shared/json-type-union.js';
import { jsonSchemaFields } from '../shared/response-format.js';
import { taggedUnion } from '../shared/tagged-union.js';

const textPart = z.object({ type: z.literal('text'), text: z.string() });

const imageUrlPart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).nullish() }),
});

/** Known to OpenAI; refused by the decoder (no internal representation yet). */
const inputAudioPart = z.object({ type: z.literal('input_audio') });
const filePart = z.object({ type: z.literal('file') });

const refusalPart = z.object({ type: z.literal('refusal'), refusal: z.string() });

const textContent = byJsonType({ string: z.string(), array: z.array(textPart) }, 'a string or a list of text parts');

const toolCall = z.object({
  id: z.string(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

/**
 * Gateway extension: reasoning of an earlier assistant turn, exactly as this dialect returned
 * it in `message.reasoning_details`, so thinking signatures and redacted reasoning round-trip.
 * `reasoning.summary` (OpenRouter) is accepted as unsigned reasoning text.
 */
export const reasoningDetail = taggedUnion('type', [
  z.object({ type: z.literal('reasoning.text'), text: z.string(), signature: z.string().nullish() }),
  z.object({ type: z.literal('reasoning.encrypted'), data: z.string() }),
  z.object({ type: z.literal('reasoning.summary'), summary: z.string() }),
]);

const message = taggedUnion('role', [
  z.object({ role: z.literal(['system', 'developer']), content: textContent }),
  z.object({
    role: z.literal('user'),
    content: byJsonType({ string: z.string(), array: z.array(taggedUnion('type', [textPart, imageUrlPart, inputAudioPart, filePart])) }, 'a string or a list of content parts'),
  }),
  z.object({
    role: z.literal('assistant'),
    content: byJsonType({ string: z.string(), array: z.array(taggedUnion('type', [textPart, refusalPart])) }, 'a string, a list of text parts or null').nullish(),
    refusal: z.string().nullish(),
    tool_calls: z.array(toolCall).nullish(),
    reasoning_content: z.string().nullish(),
    reasoning_details: z.array(reasoningDetail).nullish(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: textContent }),
]);

const tool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
});

const toolChoice = byJsonType(
  { string: z.enum(['none', 'auto', 'required']), object: z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }) },
  "'none', 'auto', 'required' or a function tool choice",
);

const positiveInt = z.number().int().positive();

/** Structured output; `json_schema` nests its fields (the Responses API keeps them flat). */
const responseFormat = taggedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({ type: z.literal('json_schema'), json_schema: z.object(jsonSchemaFields) }),
]);


export const chatCompletionsRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(message).min(1),
  tools: z.array(tool).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_completion_tokens: positiveInt.nullish(),
  max_tokens: positiveInt.nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  stop: byJsonType({ string: z.string(), array: z.array(z.string()).max(4) }, 'a string or a list of strings').nullish(),
  // The spec's names with OpenAI's `xhigh` (a level of its own), and `none` as an alias of `off`.
  reasoning_effort: z.enum(acceptedReasoningEfforts).nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  n: z.number().int().nullish(),
  response_format: responseFormat.nullish(),
});

export type ChatCompletionsBody = z.output<typeof chatCompletionsRequestSchema>;
export type ChatCompletionsMessage = ChatCompletionsBody['messages'][number];
