// Arguments for a simulated tool call, derived from the tool's JSON schema: every required
// property gets the simplest value of its type, so the arguments validate against the schema
// (clients that check them keep working) and are the same for the same schema every time.

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The simplest value a schema accepts: string "sim", number 1, boolean true, [] / {}; enum: its first value. */
export function valueForSchema(schema: unknown): unknown {
  if (!isSchema(schema)) return 'sim';
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return valueForSchema(options[0]);
  }
  // `type` may be a list (["string", "null"]): the first non-null one is what a model would pick.
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((candidate) => candidate !== 'null') ?? types[0];
  switch (type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    case 'null':
      return null;
    default:
      return 'sim';
  }
}

/** The arguments object for a tool: its required properties, each with valueForSchema. */
export function argumentsForSchema(schema: unknown): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  if (!isSchema(schema)) return args;
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const name of required) {
    if (typeof name === 'string') args[name] = valueForSchema(properties[name]);
  }
  return args;
}
