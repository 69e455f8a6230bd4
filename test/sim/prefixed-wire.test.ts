// The vendor simulators' body reader: a body over the limit is refused whole, never handed on
// cut (Yandex's and GigaChat's simulators once parsed the first 32 MB of a larger body).
import { createServer, request } from 'node:http';
import { once } from 'node:events';
import test from 'ava';
import { BodyTooLarge, readRawBody } from '../../src/sim/vendors/prefixed-wire.js';

async function readThrough(body: Buffer, maxBytes: number): Promise<string> {
  const server = createServer((incoming, outgoing) => {
    readRawBody(incoming, maxBytes).then(
      (raw) => outgoing.end(`read ${raw.length}`),
      (error: Error) => outgoing.writeHead(413).end(`${error instanceof BodyTooLarge ? 'too large' : 'other'}: ${error.message}`),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  try {
    const outgoing = request({ host: '127.0.0.1', port, method: 'POST', path: '/' });
    outgoing.end(body);
    const [answer] = (await once(outgoing, 'response')) as [import('node:http').IncomingMessage];
    let text = '';
    for await (const chunk of answer) text += chunk;
    return `${answer.statusCode} ${text}`;
  } finally {
    server.close();
  }
}

test('a body within the limit is read whole', async (t) => {
  t.is(await readThrough(Buffer.alloc(1000, 'a'), 1000), '200 read 1000');
});

test('a body over the limit is drained and refused, not cut to the limit', async (t) => {
  t.is(await readThrough(Buffer.alloc(1001, 'a'), 1000), '413 too large: request body larger than 1000 bytes');
});
