// Requests Node's HTTP parser refuses before any route sees them are answered with the
// catalog's error in OpenAI's shape, with a request id and `Connection: close`, instead of
// Node's bare status line with no body (before: `HTTP/1.1 400 Bad Request` and nothing else).
// Each is sent on a raw socket, since no HTTP client sends such requests on purpose.
import http from 'node:http';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import test, { type ExecutionContext } from 'ava';
import { parse } from 'yaml';
import { answerParserRefusals } from '../../src/http/parser-refusals.js';
import { createTestDatabase } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { capturedLogger, exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';

interface RawAnswer {
  readonly statusLine: string;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  /** What followed the first answer on the connection (a second answer on a kept-alive one). */
  readonly rest: string;
}

async function startTestGateway(t: ExecutionContext, server: Record<string, unknown> = {}) {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const { logger, lines } = capturedLogger();
  const gateway = await startGateway(t, database, { raw: { ...raw, server: { ...raw.server, ...server } }, logger });
  return { gateway, lines };
}

/** The first answer in `received`, its body parsed as JSON when it has a Content-Length. */
function firstAnswer(received: string): RawAnswer {
  const headEnd = received.indexOf('\r\n\r\n');
  if (headEnd < 0) throw new Error(`no HTTP answer in ${JSON.stringify(received)}`);
  const [statusLine, ...headerLines] = received.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length']);
  const bodyText = received.slice(headEnd + 4, headEnd + 4 + length);
  return { statusLine: statusLine!, headers, body: JSON.parse(bodyText), rest: received.slice(headEnd + 4 + length) };
}

/** Sends `chunks` on a raw connection (one write each) and reads what comes back until the server closes it. */
async function exchange(gateway: TestGateway, ...chunks: (string | Buffer)[]): Promise<string> {
  const { port } = new URL(gateway.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined); // a reset after the answer is not what is tested
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  await once(socket, 'connect');
  for (const chunk of chunks) socket.write(chunk);
  await once(socket, 'close');
  return Buffer.concat(received).toString('utf8');
}

function assertRefusal(t: ExecutionContext, answer: RawAnswer, statusLine: string, error: { message: string; code: string }) {
  t.is(answer.statusLine, statusLine);
  t.is(answer.headers['content-type'], 'application/json; charset=utf-8');
  t.is(answer.headers.connection, 'close');
  t.regex(answer.headers['x-request-id'] ?? '', /^req_[0-9a-z]+$/);
  t.is(answer.headers['request-id'], answer.headers['x-request-id']);
  t.deepEqual(answer.body, { error: { message: error.message, type: 'invalid_request_error', param: null, code: error.code } });
}

const chatHead = 'POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n';
/** With a valid key the route waits for the body, so only the parser can answer a request whose body is broken. */
const keyedChatHead = async (gateway: TestGateway) => `${chatHead}Authorization: Bearer ${(await gateway.newClient({ balanceUnits: 10_000_000n })).key}\r\n`;

test('headers over 16 KB (one large header, or many small ones) → 431 request_headers_too_large', async (t) => {
  const { gateway, lines } = await startTestGateway(t);
  const expected = { message: "The request's headers are over 16 KB in all (too many or too large); nothing was done.", code: 'request_headers_too_large' };
  const large = firstAnswer(await exchange(gateway, `GET /v1/models HTTP/1.1\r\nHost: gateway\r\nX-Large: ${'a'.repeat(20_000)}\r\n\r\n`));
  assertRefusal(t, large, 'HTTP/1.1 431 Request Header Fields Too Large', expected);
  const many = Array.from({ length: 1000 }, (_, index) => `X-Header-${index}: ${'v'.repeat(20)}\r\n`).join('');
  assertRefusal(t, firstAnswer(await exchange(gateway, `GET /v1/models HTTP/1.1\r\nHost: gateway\r\n${many}\r\n`)), 'HTTP/1.1 431 Request Header Fields Too Large', expected);
  const logged = lines.filter((line) => line.msg === 'request refused by the HTTP parser');
  t.deepEqual(
    logged.map((line) => [line.request_id, line.status, line.code, line.parser_error]),
    [[large.headers['x-request-id'], 431, 'request_headers_too_large', 'HPE_HEADER_OVERFLOW'], [logged[1]!.request_id, 431, 'request_headers_too_large', 'HPE_HEADER_OVERFLOW']],
  );
});

test('a bad chunk size → 400 malformed_http_request', async (t) => {
  const { gateway } = await startTestGateway(t);
  const answer = firstAnswer(await exchange(gateway, `${await keyedChatHead(gateway)}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`));
  assertRefusal(t, answer, 'HTTP/1.1 400 Bad Request', {
    message: 'The request is not valid HTTP/1.1: a chunk of its chunked body has an invalid size line; nothing was done.',
    code: 'malformed_http_request',
  });
});

test('Content-Length and Transfer-Encoding together (request smuggling), or two Content-Lengths → 400 malformed_http_request', async (t) => {
  const { gateway } = await startTestGateway(t);
  const both = firstAnswer(await exchange(gateway, `${chatHead}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`));
  assertRefusal(t, both, 'HTTP/1.1 400 Bad Request', {
    message: 'The request is not valid HTTP/1.1: it has both Content-Length and Transfer-Encoding; nothing was done.',
    code: 'malformed_http_request',
  });
  const teFirst = firstAnswer(await exchange(gateway, `${chatHead}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n`));
  t.deepEqual(teFirst.body, both.body, 'the same whichever header comes first');
  const twice = firstAnswer(await exchange(gateway, `${chatHead}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`));
  assertRefusal(t, twice, 'HTTP/1.1 400 Bad Request', {
    message: 'The request is not valid HTTP/1.1: it has more than one Content-Length; nothing was done.',
    code: 'malformed_http_request',
  });
});

test('a character HTTP does not allow in a header name or value → 400 malformed_http_request', async (t) => {
  const { gateway } = await startTestGateway(t);
  const expected = { message: 'The request is not valid HTTP/1.1: a header name or value has a character HTTP does not allow; nothing was done.', code: 'malformed_http_request' };
  assertRefusal(t, firstAnswer(await exchange(gateway, 'GET /v1/models HTTP/1.1\r\nHost: gateway\r\nX-Bad\u0001Name: v\r\n\r\n')), 'HTTP/1.1 400 Bad Request', expected);
  assertRefusal(t, firstAnswer(await exchange(gateway, 'GET /v1/models HTTP/1.1\r\nHost: gateway\r\nX-Bad-Value: a\u0000b\r\n\r\n')), 'HTTP/1.1 400 Bad Request', expected);
});

test('an HTTP/1.1 request without Host → 400 malformed_http_request, in the request log; HTTP/1.0 needs none', async (t) => {
  const { gateway } = await startTestGateway(t);
  const answer = firstAnswer(await exchange(gateway, 'GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n'));
  t.is(answer.statusLine, 'HTTP/1.1 400 Bad Request');
  t.is(answer.headers['content-type'], 'application/json; charset=utf-8');
  t.deepEqual(answer.body, {
    error: { message: 'The request is not valid HTTP/1.1: it has no Host header; nothing was done.', type: 'invalid_request_error', param: null, code: 'malformed_http_request' },
  });
  const logged = await eventually(
    async () => {
      await gateway.services.requestLog.flush();
      return gateway.services.db('request_log').where({ request_id: answer.headers['x-request-id'] }).first('status', 'error_code');
    },
    { what: 'the request log row of the request without Host' },
  );
  t.deepEqual(logged, { status: 400, error_code: 'malformed_http_request' });
  const old = firstAnswer(await exchange(gateway, 'GET /healthz HTTP/1.0\r\n\r\n'));
  t.is(old.statusLine, 'HTTP/1.1 200 OK');
  t.deepEqual(old.body, { status: 'ok' });
});

test('chunk extensions over 16 KB → 413 chunk_extensions_too_large', async (t) => {
  const { gateway } = await startTestGateway(t);
  const answer = firstAnswer(await exchange(gateway, `${await keyedChatHead(gateway)}Transfer-Encoding: chunked\r\n\r\n2;${'e'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`));
  assertRefusal(t, answer, 'HTTP/1.1 413 Payload Too Large', {
    message: "The extensions of a chunk of the request's body are too large; nothing was done.",
    code: 'chunk_extensions_too_large',
  });
});

test('headers that do not arrive within server.headers_timeout → 408 request_timeout', async (t) => {
  t.timeout(60_000);
  const { gateway } = await startTestGateway(t, { headers_timeout: '500ms', request_timeout: '1s' });
  const answer = firstAnswer(await exchange(gateway, 'GET /v1/models HTTP/1.1\r\nHost: gateway\r\n'));
  assertRefusal(t, answer, 'HTTP/1.1 408 Request Timeout', {
    message: 'The request did not arrive in time (its headers within 0.5 s, all of it within 1 s); nothing was done.',
    code: 'request_timeout',
  });
});

test('a body cut short by the client closing its side → 400 malformed_http_request, not a hang or a bare 400', async (t) => {
  const { gateway } = await startTestGateway(t);
  const head = await keyedChatHead(gateway);
  const { port } = new URL(gateway.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  await once(socket, 'connect');
  socket.end(`${head}Content-Length: 100\r\n\r\n{"model":`);
  await once(socket, 'close');
  assertRefusal(t, firstAnswer(Buffer.concat(received).toString('utf8')), 'HTTP/1.1 400 Bad Request', {
    message: 'The request is not valid HTTP/1.1: the connection was closed before the request ended; nothing was done.',
    code: 'malformed_http_request',
  });
});

test('keep-alive: a good request answered on a connection before a refused one; the server answers new connections after', async (t) => {
  const { gateway } = await startTestGateway(t);
  const received = await exchange(gateway, 'GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n', `${chatHead}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
  const first = firstAnswer(received);
  t.is(first.statusLine, 'HTTP/1.1 200 OK');
  t.deepEqual(first.body, { status: 'ok' });
  t.is(first.headers.connection, 'keep-alive');
  const second = firstAnswer(first.rest);
  t.is(second.statusLine, 'HTTP/1.1 400 Bad Request');
  t.is((second.body as { error: { code: string } }).error.code, 'malformed_http_request');
  t.is(second.rest, '', 'nothing after the refusal: the connection was closed');
  const after = await fetch(`${gateway.url}/healthz`);
  t.is(after.status, 200);
  t.deepEqual(await after.json(), { status: 'ok' });
});

test('a socket that failed (ECONNRESET, EPIPE: the client is gone) is closed without a byte and without a log line', (t) => {
  // A reset cannot be read back by a client that sent it, so the socket is observed directly.
  const server = http.createServer();
  const { logger, lines } = capturedLogger();
  answerParserRefusals(server, { headersTimeoutMs: 1000, requestTimeoutMs: 2000 }, logger);
  for (const code of ['ECONNRESET', 'EPIPE']) {
    const socket = new PassThrough();
    const written: unknown[] = [];
    socket.write = ((chunk: unknown) => (written.push(chunk), true)) as typeof socket.write;
    server.emit('clientError', Object.assign(new Error(`read ${code}`), { code }), socket);
    t.deepEqual(written, [], code);
    t.true(socket.destroyed, code);
  }
  t.deepEqual(lines, []);
});
