// Unions chosen by the JSON type of the input ("string or list of parts", "string or object").
//
// A zod union that fails reports a bare `invalid_union` at the union itself, so a bad part deep
// inside a content list would read "messages.0.content: Invalid input". Choosing the schema by
// the input's JSON type first keeps the path and the reason of the real problem
// (["body","messages",0,"content",2,"image_url","url"], "Field required"…). An input of
// no accepted type gets one `Input should be <expected>` error; an absent one reads as missing.
import { z } from 'zod';

type JsonType = 'string' | 'number' | 'boolean' | 'array' | 'object';

function jsonType(value: unknown): JsonType | 'null' | 'undefined' | 'other' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'object':
    case 'undefined':
      return typeof value as JsonType | 'undefined';
    default:
      return 'other';
  }
}

/**
 * `byJsonType({string: z.string(), array: z.array(part)}, 'a string or a list of parts')`.
 * Wrap with .nullish()/.optional() for optional fields, as usual.
 */
export function byJsonType<const Schemas extends Partial<Record<JsonType, z.ZodType>>>(schemas: Schemas, expected: string) {
  return z.unknown().transform((value, context): z.output<NonNullable<Schemas[keyof Schemas]>> => {
    const type = jsonType(value);
    const schema = (schemas as Partial<Record<string, z.ZodType>>)[type];
    if (!schema) {
      context.addIssue(
        value === undefined
          ? { code: 'invalid_type', expected: Object.keys(schemas)[0] as 'string', input: value }
          : { code: 'custom', message: `Input should be ${expected}`, input: value },
      );
      return z.NEVER;
    }
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return result.data as z.output<NonNullable<Schemas[keyof Schemas]>>;
    for (const issue of result.error.issues) context.addIssue(issue as Parameters<typeof context.addIssue>[0] & object);
    return z.NEVER;
  });
}
