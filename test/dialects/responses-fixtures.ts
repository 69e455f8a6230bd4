// Golden fixtures of the responses dialect (test/fixtures/dialects/responses/):
//   decode-*.json  { body, request }             a request body and the ChatRequest it decodes to
//   error-*.json   { body, detail }              a request body and its 422 details
//   encode-*.json  { request, context, parts, sse, result }
//                  stream parts, the SSE text the encoder writes for them (terminal event
//                  included) and the non-streaming body for the ResultAccumulator's result.
// UPDATE_FIXTURES=1 rewrites the computed fields and fails (fixture-update.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { responsesDialect } from '../../src/dialects/responses/index.js';
import { ResultAccumulator } from '../../src/model/accumulate.js';
import type { ChatRequest, StreamPart } from '../../src/model/chat.js';

export const fixtureDirectory = fileURLToPath(new URL('../fixtures/dialects/responses/', import.meta.url));

export interface EncodeFixture {
  request: ChatRequest;
  context: { id: string; created: number };
  parts: StreamPart[];
  sse?: string;
  result?: Record<string, unknown>;
}

export function fixtureNames(prefix: string): string[] {
  return readdirSync(fixtureDirectory)
    .filter((file) => file.startsWith(prefix) && file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

export function readFixture<T>(name: string): T {
  return JSON.parse(readFileSync(path.join(fixtureDirectory, `${name}.json`), 'utf8')) as T;
}

export function fixtureFile(name: string): string {
  return path.join(fixtureDirectory, `${name}.json`);
}

/** Runs the parts through the stream encoder and the accumulator, as the pipeline does. */
export function encodeParts(fixture: EncodeFixture) {
  const encoder = responsesDialect.createStreamEncoder(fixture.request, fixture.context);
  const accumulator = new ResultAccumulator();
  let sse = '';
  for (const part of fixture.parts) {
    accumulator.push(part);
    sse += encoder.encode(part);
  }
  const result = accumulator.result({ created: fixture.context.created });
  sse += encoder.end(result.usage);
  return { sse, chatResult: result, result: JSON.parse(JSON.stringify(responsesDialect.encodeResult(result, fixture.request))) as Record<string, unknown> };
}

export interface SseEvent {
  event: string | undefined;
  data: Record<string, any>;
}

/** A strict reader of what the encoder writes: `event:` + one `data:` line + blank line. */
export function parseSse(text: string): SseEvent[] {
  if (text === '') return [];
  if (!text.endsWith('\n\n')) throw new Error('SSE text must end with a blank line');
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length));
      if (data.length !== 1 || lines.length !== (event === undefined ? 1 : 2)) throw new Error(`unexpected SSE frame: ${frame}`);
      return { event, data: JSON.parse(data[0]) as Record<string, any> };
    });
}
