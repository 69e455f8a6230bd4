// Server-sent events read from a fetch body (EventSource cannot POST or send headers): the
// chunks are split into events by blank lines, `data:` lines joined by newlines, comments and
// other fields ignored. Pure, so it is unit-tested (test/web/sse.test.ts).

export interface ServerSentEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/** Feeds text as it arrives; returns the events it completed. Keeps the unfinished tail. */
export class SseParser {
  private buffer = '';

  push(text: string): ServerSentEvent[] {
    this.buffer += text;
    const events: ServerSentEvent[] = [];
    // Events end with a blank line; CRLF, CR and LF all end lines (the SSE grammar).
    const normalized = this.buffer.replace(/\r\n?/g, '\n');
    const blocks = normalized.split('\n\n');
    this.buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      const event = parseBlock(block);
      if (event) events.push(event);
    }
    return events;
  }

  /** The last event when the stream ended without its blank line. */
  end(): ServerSentEvent[] {
    const event = parseBlock(this.buffer.replace(/\r\n?/g, '\n'));
    this.buffer = '';
    return event ? [event] : [];
  }
}

function parseBlock(block: string): ServerSentEvent | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }
  return data.length === 0 ? undefined : { event, data: data.join('\n') };
}

/** Every event of a streamed response body, in order. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    reader.releaseLock();
  }
}
