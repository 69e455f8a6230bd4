// Golden fixtures of the media adapters (test/fixtures/vendors/media/), hand-written from
// wire-formats.md §4 and §6 and Stability's upscaler documentation. Each names the upstream
// `kind` and the `operation`, and goes through mediaAdapterFor, so the fixtures also pin which
// adapter (and which error reader) a kind gets for an operation:
//   build-*.json  { kind, operation, target, request, expected: {url, method, headers, body} }
//                 body {json} as sent, or {form: [entries in order]}: {name, value} for a
//                 string field, {name, filename, type, $bytes} for a file part
//   parse-*.json  { kind, operation, target, request, response: {status?, headers?, json | text | $bytes}, result | error }
//   error-*.json  { kind, operation, status, body (text, or JSON written as an object), error }
// Bytes anywhere are written {"$bytes": "<base64>"}.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { mediaAdapterFor } from '../../src/vendors/registry.js';
import type { MediaAdapter, MediaHttpRequest, MediaHttpResponse, MediaOperation, MediaTarget } from '../../src/vendors/media-types.js';
import { UpstreamError } from '../../src/vendors/types.js';

const directory = fileURLToPath(new URL('../fixtures/vendors/media/', import.meta.url));

type OperationName = Exclude<keyof MediaAdapter, 'kind' | 'parseError'>;

interface ExpectedError {
  status: number;
  retryable: boolean;
  upstreamType?: string;
  message?: string;
}

interface Fixture {
  kind: string;
  operation: OperationName;
  target?: MediaTarget;
  request?: unknown;
  expected?: { url: string; method: string; headers: Record<string, string>; body?: unknown };
  response?: { status?: number; headers?: Record<string, string>; json?: unknown; text?: string; $bytes?: string };
  result?: unknown;
  status?: number;
  body?: unknown;
  error?: ExpectedError;
}

/** `{"$bytes": "…"}` → the bytes, everywhere in a fixture value. */
function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.$bytes === 'string' && Object.keys(record).length === 1) return new Uint8Array(Buffer.from(record.$bytes, 'base64'));
    return Object.fromEntries(Object.entries(record).map(([key, member]) => [key, revive(member)]));
  }
  return value;
}

/** The reverse, for comparing results with fixtures: bytes → `{"$bytes"}`, undefined members dropped. */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined).map(([key, member]) => [key, plain(member)]));
  }
  return value;
}

async function plainBody(body: MediaHttpRequest['body']): Promise<unknown> {
  if (body === undefined) return undefined;
  if ('json' in body) return { json: JSON.parse(JSON.stringify(body.json)) };
  const entries = [];
  for (const [name, value] of body.form.entries()) {
    if (typeof value === 'string') entries.push({ name, value });
    else entries.push({ name, filename: value.name, type: value.type, $bytes: Buffer.from(await value.arrayBuffer()).toString('base64') });
  }
  return { form: entries };
}

function responseOf(fixture: NonNullable<Fixture['response']>): MediaHttpResponse {
  const body =
    fixture.$bytes !== undefined
      ? new Uint8Array(Buffer.from(fixture.$bytes, 'base64'))
      : new TextEncoder().encode(fixture.text ?? JSON.stringify(fixture.json));
  return { status: fixture.status ?? 200, headers: fixture.headers ?? {}, body };
}

function describeError(error: unknown): ExpectedError | undefined {
  if (!(error instanceof UpstreamError)) return undefined;
  return { status: error.status, retryable: error.retryable, ...(error.upstreamType !== undefined ? { upstreamType: error.upstreamType } : {}), message: error.message };
}

function operationOf(fixture: Fixture): { adapter: MediaAdapter; operation: MediaOperation<unknown, unknown> } {
  const adapter = mediaAdapterFor(fixture.kind, fixture.operation);
  if (!adapter) throw new Error(`no media adapter for ${fixture.kind} ${fixture.operation}`);
  return { adapter, operation: adapter[fixture.operation] as MediaOperation<unknown, unknown> };
}

const files = readdirSync(directory)
  .filter((file) => file.endsWith('.json'))
  .sort();

test('there are fixtures of each kind', (t) => {
  for (const prefix of ['build-', 'parse-', 'error-']) t.true(files.some((file) => file.startsWith(prefix)), prefix);
});

for (const file of files) {
  const fixture = JSON.parse(readFileSync(path.join(directory, file), 'utf8')) as Fixture;
  const name = `media: ${file.slice(0, -'.json'.length)}`;
  if (file.startsWith('build-')) {
    test(name, async (t) => {
      const { operation } = operationOf(fixture);
      const built = operation.build(revive(fixture.request), fixture.target!);
      const expected = fixture.expected!;
      t.is(built.url, expected.url);
      t.is(built.method as string, expected.method);
      t.deepEqual(built.headers, expected.headers);
      t.deepEqual(await plainBody(built.body), expected.body);
    });
  } else if (file.startsWith('parse-')) {
    test(name, async (t) => {
      const { operation } = operationOf(fixture);
      const run = async () => operation.parse(responseOf(fixture.response!), revive(fixture.request), fixture.target!);
      if (fixture.error) {
        const error = await t.throwsAsync(run);
        t.deepEqual(describeError(error), { ...fixture.error, message: fixture.error.message ?? (error as Error).message });
      } else {
        t.deepEqual(plain(await run()), fixture.result);
      }
    });
  } else if (file.startsWith('error-')) {
    test(name, (t) => {
      const { adapter } = operationOf(fixture);
      const body = typeof fixture.body === 'string' ? fixture.body : JSON.stringify(fixture.body);
      const error = adapter.parseError(fixture.status!, body);
      t.true(error instanceof UpstreamError);
      t.deepEqual(describeError(error), { ...fixture.error!, message: fixture.error!.message ?? error.message });
    });
  } else {
    test(name, (t) => t.fail(`unknown fixture kind: ${file}`));
  }
}
