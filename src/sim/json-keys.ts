// The keys a JSON-mode prompt asks for (response_format json_object gives no schema): the
// simulator answers an object with them, so a client's JSON mode parses what it asked for.
// Found in the instructions and the last user turn: `key: type` lines or template entries
// (`{ name: string, age: number }`) and words in double quotes or backticks.

const keyword = '[A-Za-z_][A-Za-z0-9_]{0,63}';
const keyLine = new RegExp(`(?:^|[{,\\n])\\s*["'\`]?(${keyword})["'\`]?\\s*:\\s*([A-Za-z\\[]*)`, 'g');
const quoted = new RegExp(`["\`](${keyword})["\`]`, 'g');
const notKeys = new Set(['json', 'JSON', 'json_object']);

/** A value of the type named after the key (number, integer, boolean, array…), else a string. */
function valueFor(typeHint: string): unknown {
  const hint = typeHint.toLowerCase();
  if (hint.startsWith('number') || hint.startsWith('integer') || hint.startsWith('int') || hint.startsWith('float')) return 1;
  if (hint.startsWith('bool')) return true;
  if (hint.startsWith('[') || hint.startsWith('array') || hint.startsWith('list')) return [];
  return 'sim';
}

/** The object a JSON-mode answer holds: the keys named in `texts`, in order; none named → undefined. */
export function objectForNamedKeys(texts: readonly string[]): Record<string, unknown> | undefined {
  const answer: Record<string, unknown> = {};
  for (const text of texts) {
    for (const match of text.matchAll(keyLine)) if (!notKeys.has(match[1]!) && !(match[1]! in answer)) answer[match[1]!] = valueFor(match[2] ?? '');
    for (const match of text.matchAll(quoted)) if (!notKeys.has(match[1]!) && !(match[1]! in answer)) answer[match[1]!] = 'sim';
  }
  return Object.keys(answer).length > 0 ? answer : undefined;
}
