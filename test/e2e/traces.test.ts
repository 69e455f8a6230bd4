// Issue 30 item 10: OpenTelemetry traces, opt-in (observability.otlp). A real OTLP/HTTP
// receiver in the test gets, for one request through the OpenAI SDK, the server span with its
// children (the hold, each upstream try — a route that fails over shows two — and the settle),
// the GenAI attributes with the exact token counts the client got, and the charge the ledger
// wrote; no prompt or completion unless capture_content. The gateway is stopped before the
// spans are read: a stop exports what is buffered, so nothing is waited for.
// Traces are not storage: one backend.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { createTestDatabase, type TestDatabase } from '../helpers/backends.js';
import { startChatGateway, testPrices } from '../helpers/chat-gateway.js';
import { startGateway } from '../helpers/gateway.js';
import { formatRub } from '../../src/util/money.js';
import { noopTracer } from '../../src/observability/tracer.js';

interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  /** 0 unset, 2 error. */
  readonly statusCode: number;
  readonly attributes: Record<string, unknown>;
  readonly resource: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

function valueOf(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

const attributesOf = (list: { key: string; value: OtlpValue }[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

/** A collector's OTLP/HTTP traces endpoint: keeps every body posted to /v1/traces. */
async function otlpReceiver(t: ExecutionContext) {
  const posts: { contentType: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const contentType = request.headers['content-type'] ?? '';
      posts.push({ contentType, headers: request.headers, body: Buffer.concat(chunks) });
      // An empty ExportTraceServiceResponse: everything accepted.
      if (contentType.startsWith('application/json')) response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    /** The spans of every JSON body received, in the order they came. */
    spans(): ReceivedSpan[] {
      return posts.flatMap((post) => {
        const body = JSON.parse(post.body.toString('utf8')) as {
          resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: any[] }[] }[];
        };
        return body.resourceSpans.flatMap((resourceSpans) =>
          resourceSpans.scopeSpans.flatMap((scope) =>
            scope.spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              kind: span.kind,
              statusCode: span.status?.code ?? 0,
              attributes: attributesOf(span.attributes),
              resource: attributesOf(resourceSpans.resource.attributes),
            })),
          ),
        );
      });
    },
  };
}

async function sqlite(t: ExecutionContext): Promise<TestDatabase> {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  return database;
}

/** An upstream that drops every connection as it comes: the first route fails, the second serves. */
async function deadUpstream(t: ExecutionContext): Promise<string> {
  const dead = createServer().on('connection', (socket) => socket.destroy());
  await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => dead.close(() => resolve())));
  return `http://127.0.0.1:${(dead.address() as AddressInfo).port}/v1`;
}

const fallbackModel = {
  id: 't/fallback',
  name: 't/fallback',
  type: 'text',
  pricing: testPrices,
  capabilities: { max_output_tokens: 4096 },
  routes: [
    { provider: 'dead', model: 'chat', weight: 1000 },
    { provider: 'compat', model: 'chat', weight: 0 },
  ],
};

async function tracedGateway(t: ExecutionContext, observability: Record<string, unknown>, env: Record<string, string> = {}) {
  const gateway = await startChatGateway(t, await sqlite(t), {
    providers: { dead: { kind: 'openai', base_url: await deadUpstream(t) } },
    models: [fallbackModel, { id: 't/embed', name: 't/embed', type: 'embeddings', route: { provider: 'compat', model: 'embedding-small' }, pricing: { per_1m_input_tokens: '1.80' } }],
    observability,
    env,
  });
  const client = await gateway.newClient({ balanceUnits: 1_000_000n });
  const openai = new OpenAI({ apiKey: client.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  return { gateway, client, openai };
}

const prompt = 'Tell me about the lighthouse keeper Ingrid';
const contentKeys = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions'];
/** A span's attributes without the captured content (checked on its own). */
const withoutContent = (attributes: Record<string, unknown>) => Object.fromEntries(Object.entries(attributes).filter(([key]) => !contentKeys.includes(key)));

/** What the client got back, and the spans of its one request, checked for the shape every chat trace has. */
function checkChatTrace(t: ExecutionContext, spans: ReceivedSpan[], expected: { accountId: string; keyId: string; chargedUnits: bigint; usage: { input: number; output: number }; responseId: string }) {
  const server = spans.find((span) => span.kind === 2)!;
  t.truthy(server, 'a server span');
  t.deepEqual(
    spans.map((span) => [span.name, span.parentSpanId === server.spanId, span.traceId === server.traceId]),
    [
      ['gateway.hold', true, true],
      ['chat chat', true, true],
      ['chat chat', true, true],
      ['gateway.settle', true, true],
      ['POST /v1/chat/completions', false, true],
    ],
    'the children in the order they ended, then the request',
  );
  t.is(server.parentSpanId, undefined, 'the request has no parent (the client sent no traceparent)');
  t.deepEqual(server.resource['service.name'], 'gateway-test');
  const [hold, failedTry, servedTry, settle] = spans;
  const charge = formatRub(expected.chargedUnits);
  t.deepEqual(server.attributes, {
    'http.request.method': 'POST',
    'url.path': '/v1/chat/completions',
    'http.route': '/v1/chat/completions',
    'http.response.status_code': 200,
    'gateway.operation': 'chat',
    'gateway.account_id': expected.accountId,
    'gateway.key_id': expected.keyId,
    'gateway.model': 't/fallback',
    'gateway.charge_rub': charge,
  });
  t.is(server.statusCode, 0);
  t.regex(String(hold!.attributes['gateway.amount_rub']), /^\d+\.\d{4}$/);
  t.true(Number(hold!.attributes['gateway.amount_rub']) > Number(charge), 'the worst case was held');
  t.deepEqual(withoutContent(failedTry!.attributes), {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'chat',
    'gen_ai.request.max_tokens': 4096,
    'gateway.provider': 'dead',
    'gateway.attempt': 1,
    'error.type': 'connect_error',
  });
  t.is(failedTry!.kind, 3);
  t.is(failedTry!.statusCode, 2, 'the failed try is an error');
  t.deepEqual(withoutContent(servedTry!.attributes), {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai-compatible',
    'gen_ai.request.model': 'chat',
    'gen_ai.request.max_tokens': 4096,
    'gateway.provider': 'compat',
    'gateway.attempt': 2,
    'gen_ai.response.id': expected.responseId,
    'gen_ai.response.model': 'chat',
    'gen_ai.response.finish_reasons': ['stop'],
    'gen_ai.usage.input_tokens': expected.usage.input,
    'gen_ai.usage.output_tokens': expected.usage.output,
  });
  t.is(servedTry!.kind, 3);
  t.is(servedTry!.statusCode, 0);
  t.deepEqual(settle!.attributes, {
    'gateway.amount_rub': charge,
    'gateway.billed.input_tokens': expected.usage.input,
    'gateway.billed.output_tokens': expected.usage.output,
    'gateway.billed.estimated': false,
  });
  return { server, servedTry: servedTry! };
}

test('a non-streamed chat that fails over: the request span, the hold, two tries and the settle, with exact tokens and charge, and no content', async (t) => {
  const receiver = await otlpReceiver(t);
  const { gateway, client, openai } = await tracedGateway(t, { otlp: { endpoint: receiver.endpoint, protocol: 'http/json', service_name: 'gateway-test' } });
  const completion = await openai.chat.completions.create({ model: 't/fallback', messages: [{ role: 'user', content: prompt }] });
  const answer = completion.choices[0]!.message.content!;
  const balance = await gateway.services.ledger.balance(client.accountId);
  await gateway.stop();

  const spans = receiver.spans();
  const { servedTry } = checkChatTrace(t, spans, {
    accountId: client.accountId,
    keyId: client.keyId,
    chargedUnits: 1_000_000n - balance.balanceUnits,
    usage: { input: completion.usage!.prompt_tokens, output: completion.usage!.completion_tokens },
    responseId: completion.id,
  });
  t.true(1_000_000n - balance.balanceUnits > 0n);
  for (const span of spans) for (const key of contentKeys) t.false(key in span.attributes, `${span.name} has no ${key}`);
  const everything = receiver.posts.map((post) => post.body.toString('utf8')).join('\n');
  t.false(everything.includes('lighthouse keeper'), 'the prompt is nowhere in what was exported');
  t.false(everything.includes(answer.slice(0, 30)), 'nor the completion');
});

test('a streamed chat that fails over: the same trace; with capture_content the served try carries the prompt and the completion', async (t) => {
  const receiver = await otlpReceiver(t);
  const { gateway, client, openai } = await tracedGateway(t, { otlp: { endpoint: receiver.endpoint, protocol: 'http/json', service_name: 'gateway-test', capture_content: true } });
  const stream = await openai.chat.completions.create({
    model: 't/fallback',
    stream: true,
    stream_options: { include_usage: true },
    messages: [
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: prompt },
    ],
  });
  let answer = '';
  let usage: OpenAI.CompletionUsage | undefined;
  let id = '';
  for await (const chunk of stream) {
    id = chunk.id;
    answer += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  const balance = await gateway.services.ledger.balance(client.accountId);
  await gateway.stop();

  const spans = receiver.spans();
  const { servedTry } = checkChatTrace(t, spans, {
    accountId: client.accountId,
    keyId: client.keyId,
    chargedUnits: 1_000_000n - balance.balanceUnits,
    usage: { input: usage!.prompt_tokens, output: usage!.completion_tokens },
    responseId: id,
  });
  t.not(answer, '');
  t.is(servedTry.attributes['gen_ai.system_instructions'], JSON.stringify([{ type: 'text', content: 'Answer briefly.' }]));
  t.is(servedTry.attributes['gen_ai.input.messages'], JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: prompt }] }]));
  t.is(servedTry.attributes['gen_ai.output.messages'], JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }]));
  t.is(spans[1]!.attributes['gen_ai.input.messages'], servedTry.attributes['gen_ai.input.messages'], 'the failed try was sent the same prompt');
  t.false('gen_ai.output.messages' in spans[1]!.attributes, 'and got nothing back');
  for (const span of [spans[0]!, spans[3]!, spans[4]!]) for (const key of contentKeys) t.false(key in span.attributes, `${span.name} has no ${key}`);
});

test('a media call (embeddings): the request span, the hold, the try with its input tokens, and the settle', async (t) => {
  const receiver = await otlpReceiver(t);
  const { gateway, client, openai } = await tracedGateway(t, { otlp: { endpoint: receiver.endpoint, protocol: 'http/json', service_name: 'gateway-test' } });
  const embedding = await openai.embeddings.create({ model: 't/embed', input: 'a lighthouse' });
  const balance = await gateway.services.ledger.balance(client.accountId);
  await gateway.stop();

  const spans = receiver.spans();
  const server = spans.find((span) => span.kind === 2)!;
  t.deepEqual(
    spans.map((span) => [span.name, span.parentSpanId === server.spanId]),
    [
      ['gateway.hold', true],
      ['embeddings embedding-small', true],
      ['gateway.settle', true],
      ['POST /v1/embeddings', false],
    ],
  );
  const charge = formatRub(1_000_000n - balance.balanceUnits);
  t.like(server.attributes, { 'gateway.operation': 'embed', 'gateway.model': 't/embed', 'gateway.charge_rub': charge, 'gateway.account_id': client.accountId, 'http.response.status_code': 200 });
  t.deepEqual(spans[1]!.attributes, {
    'gen_ai.operation.name': 'embeddings',
    'gen_ai.provider.name': 'openai-compatible',
    'gen_ai.request.model': 'embedding-small',
    'gateway.provider': 'compat',
    'gateway.attempt': 1,
    'gen_ai.usage.input_tokens': embedding.usage.prompt_tokens,
  });
  t.deepEqual(spans[2]!.attributes, { 'gateway.amount_rub': charge });
});

test('the caller\'s traceparent is the request span\'s parent; headers_env gives the collector its headers; protobuf is the default encoding', async (t) => {
  const receiver = await otlpReceiver(t);
  const { gateway, client } = await tracedGateway(
    t,
    { otlp: { endpoint: `${receiver.endpoint}/`, headers_env: 'TEST_OTLP_HEADERS', service_name: 'gateway-test' } },
    { TEST_OTLP_HEADERS: 'authorization=Bearer%20collector-secret, x-tenant=t1' },
  );
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${client.key}`, 'content-type': 'application/json', traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    body: JSON.stringify({ model: 'compat/chat', messages: [{ role: 'user', content: 'hello' }] }),
  });
  t.is(response.status, 200);
  await response.text();
  await gateway.stop();

  t.true(receiver.posts.length > 0);
  for (const post of receiver.posts) {
    t.is(post.contentType, 'application/x-protobuf');
    t.is(post.headers.authorization, 'Bearer collector-secret');
    t.is(post.headers['x-tenant'], 't1');
  }
  const body = Buffer.concat(receiver.posts.map((post) => post.body));
  // Protobuf carries strings and ids as they are: the names, the attribute keys and the trace id's bytes.
  t.true(body.includes('POST /v1/chat/completions'));
  t.true(body.includes('gen_ai.usage.input_tokens'));
  t.true(body.includes(Buffer.from(traceId, 'hex')), 'the request joined the caller\'s trace');
  t.true(body.includes(Buffer.from('b7ad6b7169203331', 'hex')), 'under the caller\'s span');
});

test('sample_ratio 0 exports nothing, and the requests are served as usual', async (t) => {
  const receiver = await otlpReceiver(t);
  const { gateway, openai } = await tracedGateway(t, { otlp: { endpoint: receiver.endpoint, protocol: 'http/json', sample_ratio: 0 } });
  const completion = await openai.chat.completions.create({ model: 'compat/chat', messages: [{ role: 'user', content: 'hello' }] });
  t.is(completion.choices[0]!.finish_reason, 'stop');
  await gateway.stop();
  t.deepEqual(receiver.spans(), []);
});

test('without observability.otlp the tracer is the shared no-op', async (t) => {
  const gateway = await startGateway(t, await sqlite(t));
  t.is(gateway.services.tracer, noopTracer);
});

test('failures: an upstream 500 marks its try and the request (502) as errors and releases the hold; a 402 is a failed hold', async (t) => {
  const receiver = await otlpReceiver(t);
  const { gateway, openai } = await tracedGateway(t, { otlp: { endpoint: receiver.endpoint, protocol: 'http/json' } });
  const failed = await openai.chat.completions.create({ model: 'compat/chat', messages: [{ role: 'user', content: 'hello [[sim:status=500]]' }] }).catch((error: unknown) => error);
  t.is((failed as InstanceType<typeof OpenAI.APIError>).status, 502);
  const broke = await gateway.newClient();
  const refused = await new OpenAI({ apiKey: broke.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'compat/chat', messages: [{ role: 'user', content: 'hello' }] }).catch((error: unknown) => error);
  t.is((refused as InstanceType<typeof OpenAI.APIError>).status, 402);
  await gateway.stop();

  const spans = receiver.spans();
  const servers = spans.filter((span) => span.kind === 2);
  t.is(servers.length, 2);
  const childrenOf = (server: ReceivedSpan) => spans.filter((span) => span.parentSpanId === server.spanId).map((span) => [span.name, span.statusCode, span.attributes['error.type'] ?? null, span.attributes['gateway.amount_rub'] ?? null]);
  const [upstreamFailed, holdRefused] = servers;
  t.like(upstreamFailed!.attributes, { 'http.response.status_code': 502, 'gateway.error_code': 'upstream_error', 'gateway.charge_rub': '0.0000', 'error.type': '502' });
  t.is(upstreamFailed!.statusCode, 2);
  t.deepEqual(childrenOf(upstreamFailed!).map((child) => child.slice(0, 3)), [
    ['gateway.hold', 0, null],
    ['chat chat', 2, '500'],
    ['gateway.settle', 0, null],
  ]);
  t.is(childrenOf(upstreamFailed!)[2]![3], '0.0000', 'the hold was released: nothing charged');
  t.like(holdRefused!.attributes, { 'http.response.status_code': 402, 'gateway.error_code': 'insufficient_balance', 'gateway.charge_rub': '0.0000' });
  t.is(holdRefused!.statusCode, 0, 'a 4xx is the client\'s, not the server\'s error');
  t.deepEqual(childrenOf(holdRefused!), [['gateway.hold', 2, 'insufficient_balance', null]]);
});

test('a client that leaves mid-stream: the try ends as client_gone, and the settle charges what was produced', async (t) => {
  const receiver = await otlpReceiver(t);
  const { gateway, client } = await tracedGateway(t, { otlp: { endpoint: receiver.endpoint, protocol: 'http/json' } });
  const leave = new AbortController();
  // The simulator's pacing (200 ms between chunks) keeps the stream going while the client leaves after its first chunk.
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${client.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'compat/chat', stream: true, messages: [{ role: 'user', content: 'hello [[sim:delay=200]] [[sim:tokens=200]]' }] }),
    signal: leave.signal,
  });
  const reader = response.body!.getReader();
  await reader.read();
  leave.abort();
  await reader.read().catch(() => undefined);
  await gateway.stop();

  const spans = receiver.spans();
  const server = spans.find((span) => span.kind === 2)!;
  const children = spans.filter((span) => span.parentSpanId === server.spanId);
  t.deepEqual(children.map((span) => [span.name, span.attributes['error.type'] ?? null]), [
    ['gateway.hold', null],
    ['chat chat', 'client_gone'],
    ['gateway.settle', null],
  ]);
  const charged = children[2]!.attributes['gateway.amount_rub'];
  t.is(server.attributes['gateway.charge_rub'], charged);
  t.not(charged, '0.0000', 'what was produced is charged');
});
