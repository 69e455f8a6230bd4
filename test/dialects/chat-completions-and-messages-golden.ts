// Golden fixtures of the chat-completions and messages dialects, and a one-response HTTP
// server for driving the real SDK stream parsers with the encoders' SSE text.
//
// A fixture is test/fixtures/dialects/<dialect>/<case>.json:
//   decode-*  {body, request}           the client body and the ChatRequest it decodes to
//   error-*   {body, detail}            a body refused with these 422 details
//   encode-*  {request, context, parts, sse, result}
//             stream parts in; the exact SSE text out (encode each part, then end() with the
//             accumulated usage) and the non-streamed body of the same parts (ResultAccumulator)
// UPDATE_FIXTURES=1 rewrites the expected halves from the code and fails (fixture-update.ts).
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { ResultAccumulator } from '../../src/model/accumulate.js';
import { emptyUsage, type AssistantContentPart, type ChatRequest, type ChatResult, type StreamPart } from '../../src/model/chat.js';
import type { Dialect } from '../../src/dialects/types.js';
import { RequestValidationError, type ValidationDetail } from '../../src/validation/zod-details.js';
import { rewriteFixture } from './fixture-update.js';

export interface EncodeFixture {
  request: ChatRequest;
  context: { id: string; created: number };
  parts: StreamPart[];
  sse?: string;
  result?: unknown;
}

export interface DecodeFixture {
  body: unknown;
  request?: ChatRequest;
  detail?: ValidationDetail[];
}

export function fixtureDirectory(dialect: string): URL {
  return new URL(`../fixtures/dialects/${dialect}/`, import.meta.url);
}

export function loadFixtures<T>(dialect: string, prefix: string): { name: string; file: URL; fixture: T }[] {
  const directory = fixtureDirectory(dialect);
  return readdirSync(directory)
    .filter((file) => file.startsWith(prefix) && file.endsWith('.json'))
    .sort()
    .map((file) => ({ name: file.slice(0, -'.json'.length), file: new URL(file, directory), fixture: JSON.parse(readFileSync(new URL(file, directory), 'utf8')) as T }));
}

/** Drives an encoder and the accumulator with the same parts, as the pipeline does. */
export function encodeParts(dialect: Dialect, fixture: EncodeFixture): { sse: string; result: unknown; chatResult: ChatResult } {
  const encoder = dialect.createStreamEncoder(fixture.request, fixture.context);
  const accumulator = new ResultAccumulator();
  let sse = '';
  for (const part of fixture.parts) {
    accumulator.push(part);
    sse += encoder.encode(part);
  }
  const usage = accumulator.usage ?? emptyUsage;
  sse += encoder.end(usage);
  const chatResult = accumulator.result({ created: fixture.context.created, usage });
  const result = JSON.parse(JSON.stringify(dialect.encodeResult({ ...chatResult, id: chatResult.id || fixture.context.id }, fixture.request)));
  return { sse, result, chatResult };
}

export function decodeOutcome(decode: (body: unknown) => ChatRequest, body: unknown): { request?: ChatRequest; detail?: ValidationDetail[] } {
  try {
    return { request: decode(body) };
  } catch (error) {
    if (error instanceof RequestValidationError) return { detail: error.details };
    throw error;
  }
}

/** One test per fixture file of the dialect. */
export function goldenTests(dialect: Dialect): void {
  for (const { name, file, fixture } of loadFixtures<EncodeFixture>(dialect.name, 'encode-')) {
    test(`${dialect.name} golden ${name}`, (t) => {
      const { sse, result } = encodeParts(dialect, fixture);
      rewriteFixture(t, file, { ...fixture, sse, result });
      t.is(sse, fixture.sse ?? '(missing: run with UPDATE_FIXTURES=1)');
      t.deepEqual(result, fixture.result);
    });
  }
  for (const prefix of ['decode-', 'error-']) {
    for (const { name, file, fixture } of loadFixtures<DecodeFixture>(dialect.name, prefix)) {
      test(`${dialect.name} golden ${name}`, (t) => {
        const outcome = decodeOutcome((body) => dialect.decodeRequest(body), fixture.body);
        rewriteFixture(t, file, { body: fixture.body, ...outcome });
        if (prefix === 'error-') {
          t.truthy(outcome.detail, 'the body should be refused');
          t.deepEqual(outcome.detail, fixture.detail);
        } else {
          t.truthy(outcome.request, `the body should decode: ${JSON.stringify(outcome.detail)}`);
          t.deepEqual(outcome.request, fixture.request);
        }
      });
    }
  }
}

/** What an assistant turn keeps in Chat: reasoning first, then the text joined, then the tool calls. */
export function chatAssistantParts(result: ChatResult): AssistantContentPart[] {
  const reasoning = result.content.filter((p) => p.type === 'reasoning' || p.type === 'redacted_reasoning');
  const text = result.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  const toolCalls = result.content.filter((p) => p.type === 'tool_call');
  return [...reasoning, ...(text ? [{ type: 'text' as const, text }] : []), ...toolCalls];
}

/**
 * What an assistant turn keeps in Messages: every block in order, empty text dropped, tool
 * arguments re-serialized (tool_use.input is an object: same value, compact JSON).
 */
export function messagesAssistantParts(result: ChatResult): AssistantContentPart[] {
  return result.content
    .filter((part) => part.type !== 'text' || part.text !== '')
    .map((part) => (part.type === 'tool_call' ? { ...part, arguments: JSON.stringify(JSON.parse(part.arguments || '{}')) } : part));
}

/** An HTTP server answering every request with `body`; records the JSON request bodies. */
export async function serveBody(t: ExecutionContext, body: string, contentType = 'text/event-stream; charset=utf-8'): Promise<{ origin: string; requests: unknown[] }> {
  const requests: unknown[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      requests.push(text ? JSON.parse(text) : undefined);
      response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}
