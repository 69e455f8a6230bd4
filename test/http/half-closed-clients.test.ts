// A client that writes its whole request and then half-closes its socket (TCP FIN, Node's
// `socket.end()` after the request, `curl` with its input ended, some proxies) still gets its
// answer. Before, Node's server took the FIN for a closed connection: it ended its own side at
// once, the in-flight request was destroyed before its body was read, the client got nothing
// and the request log recorded a 500 ("stream is not readable"). The connection closes after
// the answer, since the client can send nothing more on it.
import net from 'node:net';
import { once } from 'node:events';
import test from 'ava';
import { silentMp3 } from '../../src/sim/media/mp3.js';
import { type TestDatabase, testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Writes `head` and `body` on a raw socket, half-closes it, and reads everything the server sends until it closes the connection. */
async function sendThenHalfClose(gateway: TestGateway, head: string, body: Buffer): Promise<RawAnswer> {
  const { port } = new URL(gateway.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'connect');
  socket.end(Buffer.concat([Buffer.from(head), body]));
  await once(socket, 'close');
  const received = Buffer.concat(chunks).toString('utf8');
  const headEnd = received.indexOf('\r\n\r\n');
  if (headEnd < 0) return { status: 0, headers: {}, body: received };
  const [statusLine, ...headerLines] = received.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: received.slice(headEnd + 4) };
}

async function loggedStatus(gateway: TestGateway, database: TestDatabase, requestId: string): Promise<{ status: number; error_code: string | null }> {
  return eventually(
    async () => {
      await gateway.services.requestLog.flush();
      return database.db('request_log').where({ request_id: requestId }).first('status', 'error_code');
    },
    { what: `the request log row of ${requestId}` },
  );
}

testOnBackends('a JSON chat request followed by a half-close is answered in full, and logged as 200', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const body = Buffer.from(JSON.stringify({ model: 'sim/chat', messages: [{ role: 'user', content: 'Hello there' }] }));
  const answer = await sendThenHalfClose(
    gateway,
    `POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    body,
  );
  t.is(answer.status, 200, answer.body);
  t.is(answer.headers['content-length'], String(Buffer.byteLength(answer.body)), 'the whole body arrived');
  const completion = JSON.parse(answer.body) as { object: string; choices: { message: { role: string } }[] };
  t.is(completion.object, 'chat.completion');
  t.is(completion.choices[0]!.message.role, 'assistant');
  t.deepEqual(await loggedStatus(gateway, database, answer.headers['x-request-id']!), { status: 200, error_code: null });
});

testOnBackends('a streamed chat request followed by a half-close gets its whole stream', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const body = Buffer.from(JSON.stringify({ model: 'sim/chat', stream: true, messages: [{ role: 'user', content: 'Hello there' }] }));
  const answer = await sendThenHalfClose(
    gateway,
    `POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    body,
  );
  t.is(answer.status, 200, answer.body);
  t.regex(answer.body, /data: \[DONE\]\s*(0\r\n\r\n)?$/);
  t.deepEqual(await loggedStatus(gateway, database, answer.headers['x-request-id']!), { status: 200, error_code: null });
});

testOnBackends('a multipart transcription followed by a half-close is answered in full, and logged as 200', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const boundary = 'half-closed-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nsim/stt\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`),
    silentMp3(1),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const answer = await sendThenHalfClose(
    gateway,
    `POST /v1/audio/transcriptions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
    body,
  );
  t.is(answer.status, 200, answer.body);
  t.is(typeof (JSON.parse(answer.body) as { text: unknown }).text, 'string');
  t.deepEqual(await loggedStatus(gateway, database, answer.headers['x-request-id']!), { status: 200, error_code: null });
});

