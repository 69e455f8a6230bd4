// How deep a JSON value nests, found without trusting its depth. JSON.parse builds values of any
// depth (it is iterative), but everything that walks them afterwards — zod, JSON.stringify, the
// token estimate, the error encoder — recurses, and a few thousand levels overflow the stack.
// Request bodies are refused past `maxJsonDepth` right after parsing (src/http/json-body.ts);
// JSON parsed from strings inside a request (tool-call arguments) is checked with the same walk.

/** Levels a request body may nest: the body object is level 1. Real tool schemas use ~10. */
export const maxJsonDepth = 64;

/**
 * The path to the first object or array that sits deeper than `limit` levels (the value itself
 * is level 1), or undefined when the value stays within it. Recursion stops at the limit, so the
 * walk uses at most `limit` stack frames whatever it is given; primitives cost one type check.
 */
export function pathTooDeep(value: unknown, limit: number = maxJsonDepth): (string | number)[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return walk(value, limit - 1);
}

function walk(container: object, remaining: number): (string | number)[] | undefined {
  if (Array.isArray(container)) {
    for (let index = 0; index < container.length; index++) {
      const item: unknown = container[index];
      if (typeof item !== 'object' || item === null) continue;
      if (remaining === 0) return [index];
      const path = walk(item, remaining - 1);
      if (path) {
        path.unshift(index);
        return path;
      }
    }
    return undefined;
  }
  const record = container as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    if (typeof item !== 'object' || item === null) continue;
    if (remaining === 0) return [key];
    const path = walk(item, remaining - 1);
    if (path) {
      path.unshift(key);
      return path;
    }
  }
  return undefined;
}

/** JSON.parse, or undefined when the text is not JSON or nests deeper than `maxJsonDepth`. */
export function parseBoundedJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return pathTooDeep(value) ? undefined : value;
}

/**
 * The length of JSON.stringify(value), or — for a value too deep for JSON.stringify's recursion
 * — an iterative count that leans high (every string as if each character were escaped once).
 */
export function jsonTextLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    let length = 0;
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const item = pending.pop();
      if (typeof item === 'string') length += item.length * 2 + 2;
      else if (typeof item !== 'object' || item === null) length += String(item).length + 1;
      else if (Array.isArray(item)) {
        length += 2 + item.length;
        for (const inner of item) pending.push(inner);
      } else {
        length += 2;
        for (const key in item) {
          length += key.length * 2 + 4;
          pending.push((item as Record<string, unknown>)[key]);
        }
      }
    }
    return length;
  }
}
