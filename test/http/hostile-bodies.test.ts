// Hostile request bodies against a real `gateway serve` process: a truncated multipart body,
// multipart without a boundary, a compressed multipart body, an upload the client abandons
// half-way and JSON whose Content-Encoding does not decode. Each is a 4xx JSON error (or, for
// the abandoned upload, a logged 400 and nothing kept), and the same process keeps serving:
// before the fix the first one made busboy emit an unhandled 'error' and the process exited.
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import test from 'ava';
import { assertLedgerInvariants, createTestDatabase } from '../helpers/backends.js';
import { exampleConfigPath } from '../helpers/gateway.js';
import { createClient, startProcess } from '../helpers/processes.js';

const multipartRoutes = ['/v1/audio/transcriptions', '/v1/images/edits', '/v1/images/upscale', '/v1/videos', '/v1/videos/upscale'];
const fileFields: Record<string, string> = {
  '/v1/audio/transcriptions': 'file',
  '/v1/images/edits': 'image',
  '/v1/images/upscale': 'image',
  '/v1/videos': 'input_reference',
  '/v1/videos/upscale': 'video',
};

async function post(url: string, key: string, contentType: string, body: Uint8Array | string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': contentType, ...headers }, body });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = { notJson: text };
  }
  return { status: response.status, contentType: response.headers.get('content-type'), body: json };
}

test('hostile bodies: truncated, boundary-less, compressed and abandoned multipart and undecodable JSON are 4xx; serve keeps serving', async (t) => {
  t.timeout(120_000);
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const client = await createClient(database, 10_000_000n);
  const gateway = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], {
    GATEWAY_CONFIG: exampleConfigPath,
    GATEWAY_DATABASE_URL: database.url,
    GATEWAY_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-hostile-')),
    GATEWAY_CACHE_URL: 'memory',
    GATEWAY_LOG_LEVEL: 'info', // the request lines (stderr with --json) tell when an abandoned upload was handled
  });
  t.teardown(() => gateway.stop());
  let log = '';
  gateway.child.stderr!.on('data', (chunk: Buffer) => (log += chunk));
  let exited = false;
  void gateway.child.then(() => (exited = true));
  const alive = async (after: string) => {
    const health = await fetch(`${gateway.url}/healthz`).then((response) => response.status, (error: Error) => error.message);
    t.is(health, 200, `serve still answers after ${after}`);
  };

  for (const route of multipartRoutes) {
    const field = fileFields[route]!;
    const truncated = `--zz\r\nContent-Disposition: form-data; name="${field}"; filename="a.bin"\r\n\r\nabc`;
    const answer = await post(`${gateway.url}${route}`, client.key, 'multipart/form-data; boundary=zz', truncated);
    t.is(answer.status, 400, `${route}: truncated body`);
    t.is(answer.contentType, 'application/json; charset=utf-8');
    t.deepEqual(answer.body, { error: { message: 'Malformed multipart body: Unexpected end of form', type: 'invalid_request_error', param: null, code: 'malformed_multipart' } });
    await alive(`a truncated body on ${route}`);

    const fieldOnly = await post(`${gateway.url}${route}`, client.key, 'multipart/form-data; boundary=zz', '--zz\r\nContent-Disposition: form-data; name="model"\r\n\r\nsim');
    t.is(fieldOnly.status, 400, `${route}: truncated inside a field`);
    t.is(fieldOnly.body.error.code, 'malformed_multipart');

    const garbledHeader = await post(`${gateway.url}${route}`, client.key, 'multipart/form-data; boundary=zz', `--zz\r\n${'x'.repeat(20_000)}\r\n\r\nabc\r\n--zz--\r\n`);
    t.is(garbledHeader.status, 400, `${route}: a part header of 20 kB`);
    t.is(garbledHeader.body.error.code, 'malformed_multipart');

    const noBoundary = await post(`${gateway.url}${route}`, client.key, 'multipart/form-data', 'abc');
    t.is(noBoundary.status, 400, `${route}: no boundary`);
    t.deepEqual(noBoundary.body.error, { message: 'Malformed multipart body: the Content-Type has no boundary parameter.', type: 'invalid_request_error', param: null, code: 'malformed_multipart' });

    const compressed = await post(`${gateway.url}${route}`, client.key, 'multipart/form-data; boundary=zz', gzipSync('--zz--\r\n'), { 'content-encoding': 'gzip' });
    t.is(compressed.status, 415, `${route}: gzip multipart`);
    t.deepEqual(compressed.body.error, {
      message: 'Multipart uploads must not be compressed (Content-Encoding: gzip); send the form uncompressed.',
      type: 'invalid_request_error',
      param: null,
      code: 'unsupported_content_encoding',
    });
    await alive(`hostile multipart on ${route}`);
  }

  // The client announces 1 MB, sends the start of a file and hangs up: the request ends (a 400
  // in the log), nothing is stored, nothing is held, and serve goes on.
  const seen = new Set<string>();
  for (const route of multipartRoutes) {
    const field = fileFields[route]!;
    const port = Number(new URL(gateway.url).port);
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const head = `--zz\r\nContent-Disposition: form-data; name="model"\r\n\r\nsim/x\r\n--zz\r\nContent-Disposition: form-data; name="${field}"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    socket.write(
      `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${client.key}\r\nContent-Type: multipart/form-data; boundary=zz\r\nContent-Length: 1000000\r\n\r\n${head}${'a'.repeat(5000)}`,
    );
    const logged = new Promise<void>((resolve, reject) => {
      // A hang guard, not a bound: the line comes or the test would wait forever; this names it.
      const until = setTimeout(() => reject(new Error(`no request line for the abandoned upload on ${route}`)), 20_000);
      const look = () => {
        const line = log.split('\n').find((candidate) => candidate.includes('"msg":"request"') && candidate.includes(`"path":"${route}"`) && candidate.includes('"status":400') && candidate.includes('"method":"POST"') && !seen.has(candidate));
        if (!line) return;
        seen.add(line);
        clearTimeout(until);
        gateway.child.stderr!.off('data', look);
        resolve();
      };
      gateway.child.stderr!.on('data', look);
    });
    // Usually the gateway is reading the file part when the connection goes; if it has not got
    // there yet, it finds the request already aborted: the same 400 either way, so no race.
    // (When to hang up, not a wait for a result: the line below is what is awaited.)
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await logged;
    await alive(`an abandoned upload on ${route}`);
  }
  t.is(Number((await database.db('files').count({ n: '*' }).first())?.n), 0, 'no upload was stored');
  t.is(Number((await database.db('holds').count({ n: '*' }).first())?.n), 0, 'nothing was held');

  // JSON whose Content-Encoding does not decode: a 400 that names the encoding, not a 500.
  const json = JSON.stringify({ model: 'sim/chat', messages: [{ role: 'user', content: 'hi' }] });
  const undecodable: [string, Uint8Array | string][] = [
    ['gzip', 'abcdef'],
    ['gzip', gzipSync(json).subarray(0, 20)], // a valid header, cut short (Z_BUF_ERROR)
    ['deflate', 'abcdef'],
    ['br', 'abcdef'],
  ];
  for (const [encoding, body] of undecodable) {
    const answer = await post(`${gateway.url}/v1/chat/completions`, client.key, 'application/json', body, { 'content-encoding': encoding });
    t.is(answer.status, 400, `JSON with a broken ${encoding} body`);
    t.is(answer.body.error.code, 'invalid_content_encoding');
    t.regex(answer.body.error.message, new RegExp(`^The request body is not valid ${encoding} \\(Content-Encoding: ${encoding}\\): .+`));
    await alive(`a broken ${encoding} JSON body`);
  }
  // Well-formed compressed JSON still works, and a compressed body past json_limit is a 413.
  for (const [encoding, compress] of [['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync]] as const) {
    const answer = await post(`${gateway.url}/v1/chat/completions`, client.key, 'application/json', compress(json), { 'content-encoding': encoding });
    t.is(answer.status, 200, `${encoding} JSON: ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
  const bomb = gzipSync(`{"model":"sim/chat","messages":[],"pad":"${'a'.repeat(11 * 1024 * 1024)}"}`);
  const tooLarge = await post(`${gateway.url}/v1/chat/completions`, client.key, 'application/json', bomb, { 'content-encoding': 'gzip' });
  t.is(tooLarge.status, 413, `11 MB of JSON in ${bomb.length} gzipped bytes`);
  t.is(tooLarge.body.error.code, 'request_too_large');

  await alive('everything');
  t.false(exited, 'the serve process never exited');
  await assertLedgerInvariants(t, database.db);
});
