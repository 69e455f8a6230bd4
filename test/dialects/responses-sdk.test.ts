// The official `openai` SDK (v6) against the encoder's golden output, served from a local
// HTTP server: the SDK must accept the non-streaming body, the raw event stream and the
// responses.stream() helper's accumulation. Every request body the SDK sends is decoded with
// the dialect too, so SDK-shaped input (including replayed output items) is known to decode.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import OpenAI from 'openai';
import { decodeResponsesRequest, responsesDialect } from '../../src/dialects/responses/index.js';
import type { ChatRequest } from '../../src/model/chat.js';
import { encodeParts, fixtureNames, readFixture, type EncodeFixture } from './responses-fixtures.js';

interface Served {
  server: Server;
  client: OpenAI;
  decoded: ChatRequest[];
  bodies: Record<string, unknown>[];
}

/** Answers POST /v1/responses with the fixture named by the body's `model` (or an error stream for "error-stream"). */
async function serve(): Promise<Served> {
  const decoded: ChatRequest[] = [];
  const bodies: Record<string, unknown>[] = [];
  const server = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    bodies.push(body);
    let chatRequest: ChatRequest;
    try {
      chatRequest = decodeResponsesRequest(body);
    } catch (error) {
      response.writeHead(422, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: String(error), type: 'invalid_request_error', param: null, code: 'validation_error' } }));
      return;
    }
    decoded.push(chatRequest);
    const model = String(body.model);
    const headers = { 'x-request-id': `req_${bodies.length}` };
    if (model === 'error-stream') {
      const encoder = responsesDialect.createStreamEncoder(chatRequest, { id: 'resp_err', created: 1767225600 });
      let sse = encoder.encode({ type: 'start', id: 'resp_err', model: 'x' });
      sse += encoder.encode({ type: 'text_start', index: 0 });
      sse += encoder.encode({ type: 'text_delta', index: 0, text: 'Half an ans' });
      sse += encoder.error('upstream connection lost', 'api_error');
      response.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8' });
      response.end(sse);
      return;
    }
    const fixture = readFixture<EncodeFixture>(model);
    if (body.stream) {
      response.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8' });
      // One write per event, as the pipeline flushes them.
      for (const frame of fixture.sse!.split(/(?<=\n\n)/)) response.write(frame);
      response.end();
    } else {
      response.writeHead(200, { ...headers, 'content-type': 'application/json' });
      response.end(JSON.stringify(fixture.result));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new OpenAI({ apiKey: 'gw_test', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
  return { server, client, decoded, bodies };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

let served: Served;
test.before(async () => {
  served = await serve();
});
test.after.always(() => served?.server.close());

/** The response as it was on the wire: without what the SDK computes (output_text, parsed…). */
function wireOf(response: object): unknown {
  const computed = new Set(['output_text', 'output_parsed', 'parsed', 'parsed_arguments']);
  return JSON.parse(JSON.stringify(response, (key, value: unknown) => (computed.has(key) ? undefined : value)));
}

function expectedText(fixture: EncodeFixture): string {
  return encodeParts(fixture).chatResult.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

for (const name of fixtureNames('encode-')) {
  test(`SDK: responses.create() accepts ${name}`, async (t) => {
    const fixture = readFixture<EncodeFixture>(name);
    const response = await served.client.responses.create({ model: name, input: 'Hi' });
    t.is(response.output_text, expectedText(fixture));
    t.deepEqual(wireOf(response), fixture.result);
  });

  test(`SDK: raw create({stream: true}) iteration of ${name}`, async (t) => {
    const fixture = readFixture<EncodeFixture>(name);
    const stream = await served.client.responses.create({ model: name, input: 'Hi', stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    t.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
    t.is(events[0].type, 'response.created');
    const terminal = events.at(-1)!;
    t.true(terminal.type === 'response.completed' || terminal.type === 'response.incomplete');
    t.deepEqual((terminal as { response: unknown }).response, fixture.result);
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    t.is(deltas.join(''), expectedText(fixture));
  });

  test(`SDK: responses.stream() helper accumulates ${name} to the non-streaming response`, async (t) => {
    const fixture = readFixture<EncodeFixture>(name);
    const stream = served.client.responses.stream({ model: name, input: 'Hi' });
    let textFromDeltas = '';
    const argumentSnapshots: string[] = [];
    stream.on('response.output_text.delta', (event) => (textFromDeltas += event.delta));
    stream.on('response.function_call_arguments.delta', (event) => argumentSnapshots.push(event.snapshot));
    const final = await stream.finalResponse();
    t.is(final.output_text, expectedText(fixture));
    t.is(textFromDeltas, expectedText(fixture));
    t.deepEqual(wireOf(final), fixture.result);
    if (name === 'encode-parallel-tool-calls') t.deepEqual(argumentSnapshots, ['{"city":', '{"city":"Ro', '{"city":"Paris"}', '{"city":"Rome"}']);
  });
}

test('SDK: a mid-stream error reaches the raw iterator as an error event, then response.failed', async (t) => {
  const stream = await served.client.responses.create({ model: 'error-stream', input: 'Hi', stream: true });
  const events = [];
  for await (const event of stream) events.push(event);
  const error = events.at(-2)!;
  t.is(error.type, 'error');
  t.like(error, { code: 'server_error', message: 'upstream connection lost', param: null });
  const failed = events.at(-1)!;
  t.is(failed.type, 'response.failed');
  t.like((failed as { response: object }).response, { status: 'failed', error: { code: 'server_error', message: 'upstream connection lost' } });
});

test('SDK: the responses.stream() helper rejects on a mid-stream error', async (t) => {
  const stream = served.client.responses.stream({ model: 'error-stream', input: 'Hi' });
  // openai 6.x rejects with the error event itself (7.x throws an APIError).
  const rejection = await t.throwsAsync(stream.finalResponse(), { any: true });
  t.like(rejection as object, { message: 'upstream connection lost' });
});

test('SDK: output items replayed as input decode back to the same assistant turn (signatures kept)', async (t) => {
  const first = await served.client.responses.create({ model: 'encode-reasoning-signature', input: 'Look up a cat' });
  const call = first.output.find((item) => item.type === 'function_call')!;
  await served.client.responses.create({
    model: 'encode-plain-text',
    // The SDK types output items apart from input items; the wire shapes are the same.
    input: [{ role: 'user', content: 'Look up a cat' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: 'a small feline' }],
    tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }],
    reasoning: { effort: 'medium' },
    max_output_tokens: 512,
    parallel_tool_calls: false,
    user: 'replay-test',
  });
  // Tests run concurrently: find this test's request by its user.
  const position = served.decoded.findIndex((decoded) => decoded.user === 'replay-test');
  const request = served.decoded[position];
  const { chatResult } = encodeParts(readFixture<EncodeFixture>('encode-reasoning-signature'));
  t.deepEqual(request.messages, [
    { role: 'user', content: [{ type: 'text', text: 'Look up a cat' }] },
    { role: 'assistant', content: chatResult.content },
    { role: 'user', content: [{ type: 'tool_result', toolCallId: 'toolu_01', content: [{ type: 'text', text: 'a small feline' }] }] },
  ]);
  t.like(request, { reasoningEffort: 'medium', maxOutputTokens: 512, parallelToolCalls: false, stream: false });
  t.is(served.bodies[position].store, undefined, 'the SDK does not send store by default');
});
