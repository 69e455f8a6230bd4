// Gemini's Schema (an OpenAPI 3.0 subset: `type: "OBJECT"`, `nullable`, int64 counts as
// strings, `propertyOrdering`) → the JSON Schema every upstream reads (tool parameters and
// structured output). `responseJsonSchema` / `parametersJsonSchema` are JSON Schema already and
// pass as they are.

type Schema = Record<string, unknown>;

/** Counts Google serializes as int64 strings ("1"). */
const countFields = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

export function toJsonSchema(schema: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined || value === null) continue;
    switch (key) {
      case 'type':
        if (typeof value === 'string' && value !== 'TYPE_UNSPECIFIED') out.type = value.toLowerCase();
        break;
      case 'nullable':
      case 'propertyOrdering':
        break;
      case 'properties':
        out.properties = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([name, inner]) => [name, toJsonSchema(inner)]));
        break;
      case 'items':
        out.items = toJsonSchema(value as Schema);
        break;
      case 'anyOf':
        out.anyOf = (value as Schema[]).map(toJsonSchema);
        break;
      case 'example':
        out.examples = [value];
        break;
      default:
        out[key] = countFields.has(key) && typeof value === 'string' ? Number(value) : value;
    }
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: 'null' }];
  }
  return out;
}
