// The simulator's one token rule, shared by usage, count_tokens and the prefix cache so the
// three can never disagree: a token is 4 bytes of UTF-8 (rounded up), each message costs 3
// tokens of framing, an image 85 (OpenAI's "low detail" price), a tool definition the text of
// its name, description and JSON schema. Deliberately simple, so tests can recompute it.

/** Tokens of a text: ceil(UTF-8 bytes / 4); 0 for the empty string, at least 1 otherwise. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/** Framing cost of one message (role, separators), added once per message. */
export const messageOverheadTokens = 3;

/** Cost of one image, whatever its size. */
export const imageTokens = 85;

/** Tokens of one tool definition: its name, its description and the JSON text of its schema. */
export function countToolTokens(name: string, description: string | undefined, schema: unknown): number {
  return countTokens(name) + countTokens(description ?? '') + countTokens(schema === undefined ? '' : JSON.stringify(schema));
}

/**
 * Cuts a text to at most `tokens` tokens (4 * tokens bytes), on a character boundary, so that
 * countTokens(result) <= tokens. Used for max_tokens truncation and reasoning budgets.
 */
export function cutToTokens(text: string, tokens: number): string {
  if (tokens <= 0) return '';
  const maxBytes = tokens * 4;
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}
