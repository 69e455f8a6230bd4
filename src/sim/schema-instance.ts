// A valid, deterministic instance of a JSON schema: what the simulated model answers to a
// structured-output request (OpenAI response_format / text.format, Anthropic
// output_config.format) and the arguments of every simulated tool call (so a forced output
// tool and a native format give the same JSON). The same schema always gives the same value.
//
//   object    its required properties, in the order of `properties` (then required names the
//             properties do not describe); optional ones are left out
//   array     prefixItems (tuples) first, then `items` up to max(minItems, 1), within maxItems;
//             an item that would recurse into a $ref being expanded stops at minItems
//   string    "sim", or a value of its `format` (email, uuid, date-time…), padded/cut to
//             min/maxLength, or the first of a few candidates matching its `pattern`
//   number    1 moved into [minimum, maximum] (exclusive bounds, multipleOf honoured)
//   boolean   true; null: null; const: it; enum: the first value
//   anyOf / oneOf: the first branch (one that does not recurse, when another does);
//   allOf: the branches merged; $ref: "#", "#/$defs/…", "#/definitions/…" or any JSON pointer
//   into the root (zod's toJSONSchema emits "#/$defs/__schema0" for recursive types)
type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const formatValues: Record<string, string> = {
  'date-time': '2025-01-01T00:00:00Z',
  date: '2025-01-01',
  time: '00:00:00',
  duration: 'P1D',
  email: 'sim@example.com',
  'idn-email': 'sim@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  uri: 'https://example.com/sim',
  url: 'https://example.com/sim',
  'uri-reference': 'https://example.com/sim',
  iri: 'https://example.com/sim',
  uuid: '00000000-0000-4000-8000-000000000000',
};

/** Tried in order against a `pattern` the default value does not match. */
const patternCandidates = ['sim', 'a', 'A', '0', '1', 'sim-1', 'sim_1', 'SIM', 'a1', 'https://example.com/sim', 'sim@example.com'];

/** How deep a schema may nest before arrays stop at minItems (a guard for odd schemas). */
const maxDepth = 32;

class Generator {
  /** The $refs being expanded, innermost last: an item that leads back into one is recursion. The root ("#") always is. */
  private readonly expanding: string[] = ['#'];

  constructor(private readonly root: unknown) {}

  value(input: unknown, depth: number): unknown {
    if (!isSchema(input)) return 'sim';
    const schema = typeof input.description === 'string' && input.description.endsWith('}') ? withDescribedConstraints(input) : input;
    if (typeof schema.$ref === 'string') return this.reference(schema.$ref, depth);
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
    for (const key of ['anyOf', 'oneOf'] as const) {
      const options = schema[key];
      if (Array.isArray(options) && options.length > 0) return this.value(options.find((option) => !this.recurses(option)) ?? options[0], depth + 1);
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return this.value(this.merged(schema), depth + 1);

    // `type` may be a list (["string", "null"]): the first non-null one is what a model would pick.
    const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? inferredType(schema)];
    const type = types.find((candidate) => candidate !== 'null') ?? types[0];
    switch (type) {
      case 'object':
        return this.object(schema, depth);
      case 'array':
        return this.array(schema, depth);
      case 'number':
      case 'integer':
        return numberFor(schema, type === 'integer');
      case 'boolean':
        return true;
      case 'null':
        return null;
      default:
        return stringFor(schema);
    }
  }

  private object(schema: Schema, depth: number): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    const properties = isSchema(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : []);
    for (const [name, property] of Object.entries(properties)) {
      if (required.has(name)) result[name] = this.value(property, depth + 1);
    }
    for (const name of required) if (!(name in result)) result[name] = 'sim';
    return result;
  }

  private array(schema: Schema, depth: number): unknown[] {
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
    const items: unknown[] = prefix.slice(0, maxItems).map((item) => this.value(item, depth + 1));
    const rest = Array.isArray(schema.items) ? undefined : schema.items;
    if (rest === false) return items;
    const stopEarly = depth >= maxDepth || this.recurses(rest);
    const wanted = Math.min(maxItems, stopEarly ? minItems : Math.max(minItems, prefix.length > 0 ? 0 : 1));
    while (items.length < wanted) items.push(variant(this.value(rest, depth + 1), items.length, schema.uniqueItems === true));
    return items;
  }

  private reference(ref: string, depth: number): unknown {
    const target = resolvePointer(this.root, ref);
    if (target === undefined) return 'sim';
    this.expanding.push(ref);
    try {
      return this.value(target, depth + 1);
    } finally {
      this.expanding.pop();
    }
  }

  /** Whether `schema` is (or starts with) a $ref already being expanded. */
  private recurses(schema: unknown): boolean {
    return isSchema(schema) && typeof schema.$ref === 'string' && this.expanding.includes(schema.$ref);
  }

  /** allOf: the branches' properties and required lists joined, the rest of the first branch kept. */
  private merged(schema: Schema): Schema {
    const { allOf, ...own } = schema;
    const branches = (allOf as unknown[]).map((branch) => (isSchema(branch) && typeof branch.$ref === 'string' ? resolvePointer(this.root, branch.$ref) : branch)).filter(isSchema);
    const merged: Schema = { ...Object.assign({}, ...branches), ...own };
    const properties = Object.assign({}, ...branches.map((branch) => (isSchema(branch.properties) ? branch.properties : {})), isSchema(own.properties) ? own.properties : {});
    const required = [...new Set([...branches, own].flatMap((branch) => (Array.isArray(branch.required) ? branch.required : [])))];
    if (Object.keys(properties).length > 0) merged.properties = properties;
    if (required.length > 0) merged.required = required;
    return merged;
  }
}

/**
 * The Anthropic SDK (transformJSONSchema, used by its zod helper and by LangChain) moves the
 * constraints Anthropic's structured output does not take into the description, as
 * `{enum: ["a","b"], minItems: 2}` after the text; a model reads them there, and so does the
 * simulator: those keys join the schema (keys the schema has win).
 */
function withDescribedConstraints(schema: Schema): Schema {
  const description = schema.description as string;
  const start = description.lastIndexOf('\n\n{') >= 0 ? description.lastIndexOf('\n\n{') + 2 : 0;
  const hints = parseDescribedConstraints(description.slice(start));
  return hints ? { ...hints, ...schema } : schema;
}

/** `{key: <JSON>, key: <JSON>}` → the object; undefined when the text is not of that form. */
function parseDescribedConstraints(text: string): Schema | undefined {
  if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
  const inner = text.slice(1, -1);
  const keyPattern = /([$\w-]+): /y;
  const result: Schema = {};
  let position = 0;
  while (position < inner.length) {
    keyPattern.lastIndex = position;
    const key = keyPattern.exec(inner);
    if (!key) return undefined;
    const valueStart = position + key[0].length;
    // The value ends at a ", key: " whose prefix parses as JSON, or at the end.
    const ends = [...inner.slice(valueStart).matchAll(/, [$\w-]+: /g)].map((match) => valueStart + match.index);
    ends.push(inner.length);
    let parsed = false;
    for (const end of ends) {
      try {
        result[key[1]!] = JSON.parse(inner.slice(valueStart, end));
      } catch {
        continue;
      }
      position = end === inner.length ? end : end + 2;
      parsed = true;
      break;
    }
    if (!parsed) return undefined;
  }
  return result;
}

function inferredType(schema: Schema): string | undefined {
  if (isSchema(schema.properties) || Array.isArray(schema.required)) return 'object';
  if (schema.items !== undefined || Array.isArray(schema.prefixItems)) return 'array';
  return undefined;
}

/** "#", "#/$defs/Name", "#/definitions/Name", "#/properties/a/items"… (JSON pointer, ~0 ~1 escapes). */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isSchema(node)) node = node[key];
    else return undefined;
  }
  return node;
}

function stringFor(schema: Schema): string {
  let value = (typeof schema.format === 'string' ? formatValues[schema.format] : undefined) ?? 'sim';
  const pattern = typeof schema.pattern === 'string' ? compile(schema.pattern) : undefined;
  if (pattern && !pattern.test(value)) value = patternCandidates.find((candidate) => pattern.test(candidate)) ?? value;
  if (typeof schema.minLength === 'number' && value.length < schema.minLength) value = value.padEnd(schema.minLength, 'm');
  if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) value = value.slice(0, schema.maxLength);
  return value;
}

function compile(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

/** 1, moved into the schema's bounds. */
function numberFor(schema: Schema, integer: boolean): number {
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : integer ? 1 : 0;
  let low = typeof schema.minimum === 'number' ? schema.minimum : Number.NEGATIVE_INFINITY;
  let high = typeof schema.maximum === 'number' ? schema.maximum : Number.POSITIVE_INFINITY;
  // Draft 6+: exclusiveMinimum is a number; the smallest step above it is what a model would say.
  const nudge = step > 0 ? step : 1;
  if (typeof schema.exclusiveMinimum === 'number') low = Math.max(low, schema.exclusiveMinimum + (step > 0 ? 0 : nudge / 2));
  if (typeof schema.exclusiveMaximum === 'number') high = Math.min(high, schema.exclusiveMaximum - (step > 0 ? 0 : nudge / 2));
  let value = Math.min(Math.max(1, low), high);
  if (step > 0) {
    value = Math.ceil(value / step) * step;
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) value += step;
    if (value > high || (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)) value -= step;
  }
  return value;
}

/** The n-th array item: equal to the first unless the array wants unique items (strings and numbers get a suffix / offset). */
function variant(value: unknown, n: number, unique: boolean): unknown {
  if (!unique || n === 0) return value;
  if (typeof value === 'string') return `${value}${n + 1}`;
  if (typeof value === 'number') return value + n;
  return value;
}

/** A valid instance of `schema` (any JSON value; see the header for the rules). */
export function instanceForSchema(schema: unknown): unknown {
  return new Generator(schema).value(schema, 0);
}
