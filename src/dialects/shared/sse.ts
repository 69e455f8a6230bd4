// Server-sent event framing as the OpenAI and Anthropic SDK parsers read it (wire-formats §8):
// an optional `event:` line, `data:` line(s), and a blank line ending the event.

/**
 * One SSE event. Objects are written as one line of JSON (JSON.stringify never emits a raw
 * newline); a string is written as is, one `data:` line per line of it (e.g. "[DONE]").
 * `eventName` adds the `event:` line that Anthropic clients require (and Responses clients accept).
 */
export function sseEvent(data: unknown, eventName?: string): string {
  // JSON is one line already: only a string needs splitting (every streamed event of every
  // dialect passes here, so the common case skips the regex split).
  const dataLines = typeof data === 'string' ? data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join('') : `data: ${JSON.stringify(data)}\n`;
  return `${eventName === undefined ? '' : `event: ${eventName}\n`}${dataLines}\n`;
}
