// Slow and idle clients cannot hold the server: a connection cap (server.max_connections), a
// time to send the headers (server.headers_timeout) and the whole request
// (server.request_timeout: a trickled body), an idle keep-alive timeout
// (server.keep_alive_timeout). Before, 3000 idle connections stayed open 75 s+. A streamed
// response longer than request_timeout is not cut (Node's request timeout covers receiving
// the request only). Small limits here; every wait is on the socket's 'close' event.
import net from 'node:net';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import test, { type ExecutionContext } from 'ava';
import { parse } from 'yaml';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { createTestDatabase } from '../helpers/backends.js';
import { exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';

async function startLimitedGateway(t: ExecutionContext, server: Record<string, unknown>): Promise<TestGateway> {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  return startGateway(t, database, { raw: { ...raw, server: { ...raw.server, ...server } } });
}

/** A raw TCP connection to the gateway that records what it received and when it closed. */
async function connect(t: ExecutionContext, gateway: TestGateway) {
  const { hostname, port } = new URL(gateway.url);
  const socket = net.connect({ host: hostname, port: Number(port) });
  socket.on('error', () => undefined); // a reset by the server is one of the outcomes
  t.teardown(() => socket.destroy());
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const closed = once(socket, 'close').then(() => received);
  await once(socket, 'connect');
  return { socket, closed, received: () => received };
}

test('connections beyond server.max_connections are closed at once; idle ones are closed after headers_timeout; then a request is served', async (t) => {
  t.timeout(60_000);
  const gateway = await startLimitedGateway(t, { max_connections: 3, headers_timeout: '1s', request_timeout: '2s' });
  const idle = [];
  for (let index = 0; index < 3; index++) idle.push(await connect(t, gateway));
  // The cap is reached: the server accepts and closes further connections without a byte.
  const beyond = [await connect(t, gateway), await connect(t, gateway)];
  t.deepEqual(await Promise.all(beyond.map((connection) => connection.closed)), ['', '']);
  // Connections that never send their headers are closed after headers_timeout (408 or nothing).
  for (const answer of await Promise.all(idle.map((connection) => connection.closed))) t.true(answer === '' || answer.startsWith('HTTP/1.1 408'), answer);
  const response = await fetch(`${gateway.url}/healthz`);
  t.is(response.status, 200);
  t.deepEqual(await response.json(), { status: 'ok' });
});

test('an idle keep-alive connection is closed after server.keep_alive_timeout', async (t) => {
  t.timeout(60_000);
  const gateway = await startLimitedGateway(t, { keep_alive_timeout: '300ms' });
  const connection = await connect(t, gateway);
  connection.socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n');
  const received = await connection.closed; // closed by the server, not by us
  t.regex(received, /^HTTP\/1\.1 200 OK\r\n/);
  t.true(received.endsWith('{"status":"ok"}'), 'one complete answer, then the idle connection was closed');
});

test('a trickled request body is cut after server.request_timeout with 408', async (t) => {
  t.timeout(60_000);
  const gateway = await startLimitedGateway(t, { headers_timeout: '500ms', request_timeout: '1s' });
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const connection = await connect(t, gateway);
  // Headers promise 1000 bytes of body; 9 arrive and then nothing.
  connection.socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":`);
  const received = await connection.closed;
  t.regex(received, /^HTTP\/1\.1 408 Request Timeout\r\n/);
});

test('a streamed response longer than server.request_timeout is not cut', async (t) => {
  t.timeout(60_000);
  const gateway = await startLimitedGateway(t, { headers_timeout: '500ms', request_timeout: '1s' });
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const started = performance.now();
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    // 12 chunks 250 ms apart: about 3 s, three times the request timeout.
    body: JSON.stringify({ model: 'sim/chat', stream: true, messages: [{ role: 'user', content: 'Tell me [[sim:tokens=12]] [[sim:delay=250]]' }] }),
  });
  t.is(response.status, 200);
  const text = await response.text();
  t.true(performance.now() - started > 2_000, 'the stream outlasted the request timeout');
  t.true(text.trimEnd().endsWith('data: [DONE]'), text.slice(-200));
});

test('server.headers_timeout longer than server.request_timeout is refused at load, naming the key', (t) => {
  const error = t.throws(() => loadConfig({ raw: { server: { headers_timeout: '2m', request_timeout: '1m' } }, env: {} }), { instanceOf: ConfigError });
  t.deepEqual(error.problems, ['server.headers_timeout: must not exceed server.request_timeout (1m)']);
  const defaults = loadConfig({ raw: {}, env: {} }).server;
  t.deepEqual(
    [defaults.headersTimeoutMs, defaults.requestTimeoutMs, defaults.keepAliveTimeoutMs, defaults.maxConnections, defaults.drainTimeoutMs],
    [20_000, 300_000, 65_000, 4096, 30_000],
  );
});
