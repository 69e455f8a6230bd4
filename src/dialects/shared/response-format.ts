// Structured output as the dialects receive it, decoded into the internal ResponseFormat.
// Chat nests the schema (`response_format.json_schema: {name, schema, strict, description}`),
// Responses keeps it flat (`text.format: {type, name, schema, strict, description}`), Anthropic
// sends only `{type: "json_schema", schema}`; all three land in the same shape.
import { z } from 'zod';
import type { ResponseFormat } from '../../model/chat.js';
import { taggedUnion } from './tagged-union.js';

/** The name used where the client gave none (OpenAI requires one upstream). */
export const defaultFormatName = 'response';

/** The fields of a JSON-schema format (the Chat `json_schema` object, the Responses format itself). */
export const jsonSchemaFields = {
  name: z.string().min(1).nullish(),
  schema: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
  description: z.string().nullish(),
};

/** Responses `text.format` and Chat `response_format` without its nesting. */
export const flatFormatSchema = taggedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({ type: z.literal('json_schema'), ...jsonSchemaFields }),
]);

type JsonSchemaFields = { name?: string | null; schema?: Record<string, unknown> | null; strict?: boolean | null; description?: string | null };

/**
 * The internal format of a decoded `json_schema` format. A format without a schema asks for
 * "some JSON object": json_object (what OpenAI does with it too, in effect).
 */
export function jsonSchemaFormat(fields: JsonSchemaFields): ResponseFormat {
  if (fields.schema == null) return { type: 'json_object' };
  return {
    type: 'json_schema',
    name: fields.name ?? defaultFormatName,
    schema: fields.schema,
    ...(fields.strict != null ? { strict: fields.strict } : {}),
    ...(fields.description != null ? { description: fields.description } : {}),
  };
}

/** A flat format (text / json_object / json_schema) → the internal format; text is no format at all. */
export function decodeFlatFormat(format: z.output<typeof flatFormatSchema> | null | undefined): ResponseFormat | undefined {
  if (format == null || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  return jsonSchemaFormat(format as JsonSchemaFields);
}
