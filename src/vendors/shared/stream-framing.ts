// How an upstream's streamed answer is cut into events. Most vendors send server-sent events;
// some send one JSON document per line (YandexGPT's Foundation Models API); AWS sends binary
// `application/vnd.amazon.eventstream` messages (Bedrock's ConverseStream). Each framing turns
// the body's bytes into the same SseEvent values, so an adapter's stream parser reads events
// whatever the framing, and the transport (http-transport.ts) hands each event on in the tick
// its bytes arrived.
import { createParser } from 'eventsource-parser';
import { StringDecoder } from 'node:string_decoder';
import type { SseEvent, StreamFraming } from '../types.js';
import { awsEventStream } from './aws-event-stream.js';

/** Cuts a body into events: `feed` each chunk as read, `end` once the body ended. */
export interface EventFramer {
  feed(chunk: Buffer): void;
  end(): void;
}

type FramerFactory = (onEvent: (event: SseEvent) => void) => EventFramer;

const framers: Record<StreamFraming, FramerFactory> = {
  sse: serverSentEvents,
  ndjson: jsonLines,
  'aws-eventstream': awsEventStream,
};

export function createFramer(framing: StreamFraming | undefined, onEvent: (event: SseEvent) => void): EventFramer {
  return framers[framing ?? 'sse'](onEvent);
}

function serverSentEvents(onEvent: (event: SseEvent) => void): EventFramer {
  const decoder = new StringDecoder('utf8');
  const parser = createParser({ onEvent: (event) => onEvent(event.event ? { event: event.event, data: event.data } : { data: event.data }) });
  let started = false;
  return {
    feed(chunk) {
      let text = decoder.write(chunk);
      if (!started && text !== '') {
        started = true;
        // A byte order mark opening the stream is not part of it (the SSE spec; TextDecoder's default).
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      parser.feed(text);
    },
    end() {
      parser.feed(decoder.end());
    },
  };
}

/** One event per non-blank line (`data` is the line); a last line without its newline counts too. */
function jsonLines(onEvent: (event: SseEvent) => void): EventFramer {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const emit = (line: string): void => {
    const data = line.trim();
    if (data !== '') onEvent({ data });
  };
  return {
    feed(chunk) {
      pending += decoder.write(chunk);
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        emit(line);
        newline = pending.indexOf('\n');
      }
    },
    end() {
      pending += decoder.end();
      emit(pending);
      pending = '';
    },
  };
}
