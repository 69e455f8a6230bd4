// Golden fixtures of the upstream adapters (test/fixtures/vendors/<adapter>/), hand-written
// from the wire shapes in wire-formats.md and reviewed line by line:
//   request-*.json  { request, target?, upstream, url?, headers? }
//                   a ChatRequest (fields omitted: empty/false defaults) and the body (and,
//                   when given, URL and headers) the adapter must send upstream
//   stream-*.json   { target?, request?, events, parts, error? }
//                   upstream SSE events and the StreamParts they parse into, end() included
//                   (`request`: what the request asked for, when the parsing depends on it);
//                   `error`: the UpstreamError the parser throws after `parts`
//   error-*.json    { status, body, error }
//                   a non-2xx answer (body: text, or JSON written as an object) and its UpstreamError
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import type { ChatRequest, StreamPart } from '../../src/model/chat.js';
import { UpstreamError, type ChatAdapter, type SseEvent, type UpstreamTarget } from '../../src/vendors/types.js';
import { streamViolations } from './stream-invariants.js';

const fixtureRoot = fileURLToPath(new URL('../fixtures/vendors/', import.meta.url));

export interface ExpectedError {
  message?: string;
  status: number;
  retryable: boolean;
  upstreamType?: string;
}

interface RequestFixture {
  request: Partial<ChatRequest>;
  target?: Partial<UpstreamTarget>;
  upstream: Record<string, unknown>;
  url?: string;
  headers?: Record<string, string>;
}

interface StreamFixture {
  target?: Partial<UpstreamTarget>;
  request?: Partial<ChatRequest>;
  events: SseEvent[];
  parts: StreamPart[];
  error?: ExpectedError;
}

interface ErrorFixture {
  status: number;
  body: string | Record<string, unknown>;
  error: ExpectedError;
}

export function chatRequest(fields: Partial<ChatRequest>): ChatRequest {
  return { model: 'catalog/model', system: [], messages: [], tools: [], stop: [], stream: true, includeUsage: false, ...fields };
}

/** The adapter's default target with the fixture's fields; a field given as null is removed (e.g. no apiKey). */
export function upstreamTarget(defaults: UpstreamTarget, fields: Partial<UpstreamTarget> = {}): UpstreamTarget {
  const target: Record<string, unknown> = { ...defaults, ...fields };
  for (const [key, value] of Object.entries(fields)) if (value === null) delete target[key];
  return target as unknown as UpstreamTarget;
}

/** Everything the parser emits for `events`, end() included, and what it threw, if anything. */
export function parseEvents(
  adapter: ChatAdapter,
  target: UpstreamTarget,
  events: readonly SseEvent[],
  request: ChatRequest = chatRequest({}),
): { parts: StreamPart[]; error?: unknown } {
  const parser = adapter.createStreamParser(target, request);
  const parts: StreamPart[] = [];
  try {
    for (const event of events) parts.push(...parser.push(event));
    parts.push(...parser.end());
  } catch (error) {
    return { parts, error };
  }
  return { parts };
}

export function describeError(error: unknown): ExpectedError | undefined {
  if (!(error instanceof UpstreamError)) return undefined;
  return { message: error.message, status: error.status, retryable: error.retryable, ...(error.upstreamType !== undefined ? { upstreamType: error.upstreamType } : {}) };
}

/**
 * Registers one ava test per fixture of `adapterName`. `streamedOf` reads from a built body
 * whether it asks for a stream, for wires that do not say so in a top-level `stream` (Yandex's
 * `completionOptions.stream`).
 */
export function testFixtures(
  adapterName: string,
  adapter: ChatAdapter,
  defaultTarget: UpstreamTarget,
  streamedOf: (body: Record<string, unknown>) => unknown = (body) => body.stream,
): void {
  const directory = path.join(fixtureRoot, adapterName);
  const files = readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort();
  for (const file of files) {
    const fixture: unknown = JSON.parse(readFileSync(path.join(directory, file), 'utf8'));
    const name = `${adapterName}: ${file.slice(0, -'.json'.length)}`;
    if (file.startsWith('request-')) {
      test(name, (t) => {
        const { request, target, upstream, url, headers } = fixture as RequestFixture;
        const built = adapter.buildRequest(chatRequest(request), upstreamTarget(defaultTarget, target));
        t.deepEqual(built.body, upstream);
        t.is(streamedOf(built.body), true, 'the upstream call is always streamed');
        if (url !== undefined) t.is(built.url, url);
        if (headers !== undefined) t.deepEqual(built.headers, headers);
      });
    } else if (file.startsWith('stream-')) {
      test(name, (t) => {
        const { target, request, events, parts, error } = fixture as StreamFixture;
        const result = parseEvents(adapter, upstreamTarget(defaultTarget, target), events, chatRequest(request ?? {}));
        t.deepEqual(result.parts, parts);
        if (error) {
          t.true(result.error instanceof UpstreamError, String(result.error));
          t.like(describeError(result.error), error);
        } else {
          t.is(result.error, undefined);
          t.deepEqual(streamViolations(result.parts), []);
        }
      });
    } else if (file.startsWith('error-')) {
      test(name, (t) => {
        const { status, body, error } = fixture as ErrorFixture;
        const parsed = adapter.parseError(status, typeof body === 'string' ? body : JSON.stringify(body));
        t.true(parsed instanceof UpstreamError);
        t.deepEqual(describeError(parsed), { ...error, message: error.message ?? parsed.message });
      });
    } else {
      test(name, (t) => t.fail(`unknown fixture kind: ${file}`));
    }
  }
}
