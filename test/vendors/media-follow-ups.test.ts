// Asynchronous media operations (MediaOperation.follow): submit, poll until ready, fetch the
// result, over a real loopback socket; a credential exchanged by the vendor replaces the
// configured key on every request; an operation that never finishes ends after the cap.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { createDispatcher, type Upstream } from '../../src/vendors/shared/http-transport.js';
import { maxMediaFollowUps, runMediaOperation } from '../../src/vendors/shared/media-transport.js';
import type { MediaHttpResponse, MediaOperation } from '../../src/vendors/media-types.js';
import { UpstreamError } from '../../src/vendors/types.js';

/** What the server saw: method, path and authorization of each request, in order. */
const seen: string[] = [];
let polls = 0;

const server = createServer((request, response) => {
  seen.push(`${request.method} ${request.url} ${request.headers.authorization ?? '-'}`);
  const reply = (body: unknown) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  if (request.url === '/submit') return reply({ id: 'op1' });
  if (request.url === '/operations/op1') return reply(++polls < 3 ? { done: false } : { done: true, url: '/result/op1' });
  if (request.url === '/operations/never') return reply({ done: false });
  if (request.url === '/result/op1') {
    response.writeHead(200, { 'content-type': 'image/png' });
    return response.end(Buffer.from([1, 2, 3]));
  }
  response.writeHead(404).end();
});

let baseUrl = '';
const dispatcher = createDispatcher();
test.before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.always(async () => {
  server.close();
  await dispatcher.close();
});

const json = (response: MediaHttpResponse) => JSON.parse(new TextDecoder().decode(response.body)) as { id?: string; done?: boolean; url?: string };

function operation(operationId?: string): MediaOperation<string, Uint8Array> {
  return {
    build: (prompt, target) => ({ url: `${target.baseUrl}/submit`, method: 'POST', headers: { authorization: `Bearer ${target.apiKey}` }, body: { json: { prompt } } }),
    follow: (response, _prompt, target) => {
      if (response.headers['content-type'] === 'image/png') return undefined;
      const answer = json(response);
      const authorization = { authorization: `Bearer ${target.apiKey}` };
      if (answer.id) return { request: { url: `${target.baseUrl}/operations/${operationId ?? answer.id}`, method: 'GET', headers: authorization }, delayMs: 0 };
      if (!answer.done) return { request: { url: `${target.baseUrl}/operations/${operationId ?? 'op1'}`, method: 'GET', headers: authorization }, delayMs: 1 };
      return { request: { url: `${target.baseUrl}${answer.url}`, method: 'GET', headers: {} }, delayMs: 0 };
    },
    parse: (response) => response.body,
  };
}

function upstream(credential?: Upstream['credential']): Upstream {
  return { name: 'async-media', kind: 'test', baseUrl, apiKey: 'configured-key', timeoutMs: 5_000, dispatcher, settings: {}, secrets: {}, ...(credential ? { credential } : {}) };
}

const parseError = (status: number, body: string) => new UpstreamError(`${status} ${body}`, status, status >= 500);

test.serial('a submitted operation is polled until done, then its result fetched, each with the exchanged credential', async (t) => {
  seen.length = 0;
  polls = 0;
  let exchanges = 0;
  const result = await runMediaOperation(
    upstream(async () => `token-${++exchanges}`),
    operation(),
    'a cat',
    { model: 'm', baseUrl, apiKey: 'configured-key' },
    AbortSignal.timeout(5_000),
    parseError,
  );
  t.deepEqual([...result], [1, 2, 3]);
  t.deepEqual(seen, [
    'POST /submit Bearer token-1',
    'GET /operations/op1 Bearer token-1',
    'GET /operations/op1 Bearer token-1',
    'GET /operations/op1 Bearer token-1',
    'GET /result/op1 -',
  ]);
  // One exchange per operation: the vendor caches its token, the transport asks once.
  t.is(exchanges, 1);
});

test.serial('without a credential exchange the configured key is sent', async (t) => {
  seen.length = 0;
  polls = 0;
  await runMediaOperation(upstream(), operation(), 'a dog', { model: 'm', baseUrl, apiKey: 'configured-key' }, AbortSignal.timeout(5_000), parseError);
  t.is(seen[0], 'POST /submit Bearer configured-key');
});

test.serial('an operation that never finishes fails after the cap of follow-ups, retryable, naming the upstream', async (t) => {
  seen.length = 0;
  const never: MediaOperation<string, Uint8Array> = { ...operation('never'), follow: (response, prompt, target) => operation('never').follow!(response, prompt, target) && { request: { url: `${baseUrl}/operations/never`, method: 'GET', headers: {} }, delayMs: 0 } };
  const error = await t.throwsAsync(runMediaOperation(upstream(), never, 'x', { model: 'm', baseUrl }, AbortSignal.timeout(30_000), parseError), { instanceOf: UpstreamError });
  t.is(error.message, `upstream "async-media" did not finish the operation after ${maxMediaFollowUps} polls`);
  t.is(error.status, 504);
  t.true(error.retryable);
  t.is(seen.length, 1 + maxMediaFollowUps);
});
