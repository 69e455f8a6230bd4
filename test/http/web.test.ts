// The web cabinet's static route (src/http/routes/web.ts) in a real server, over a bundle
// written here: index.html for /cabinet/ and every page path, hashed assets with a year-long
// cache, 304 on a matching ETag, gzip when asked, the strict CSP with nosniff and no-referrer
// on all of them; /cabinet/api/* paths stay the API's (unknown_endpoint), GET /cabinet redirects to
// /cabinet/, and an installation without a built cabinet answers 503 cabinet_not_built
// saying how to build it. The bundle is read once: files changed on disk afterwards are not seen.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import test, { type ExecutionContext } from 'ava';
import { routeTable, type RouteDefinition } from '../../src/http/route-table.js';
import { contentSecurityPolicy, loadWebBundle, serveCabinet, webHandler } from '../../src/http/routes/web.js';
import { createTestDatabase } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

const indexHtml = '<!doctype html><html lang="en"><head><script type="module" src="/cabinet/assets/main-ABCD1234.js"></script></head><body><div id="app"></div></body></html>';
const script = `console.log(${JSON.stringify('x'.repeat(4000))});`;

function writeBundle(): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'gw-web-'));
  mkdirSync(path.join(directory, 'assets'));
  writeFileSync(path.join(directory, 'index.html'), indexHtml);
  writeFileSync(path.join(directory, 'assets', 'main-ABCD1234.js'), script);
  return directory;
}

/** The route table with the cabinet served from `directory` instead of this installation's dist/web. */
function routesServing(directory: string): RouteDefinition[] {
  const handler = webHandler(loadWebBundle(directory));
  return routeTable.map((route) => (route.handler === serveCabinet ? { ...route, handler } : route));
}

async function gatewayServing(t: ExecutionContext, directory: string) {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  return startGateway(t, database, { routes: routesServing(directory) });
}

const securityHeaders = (response: Response) => ({
  csp: response.headers.get('content-security-policy'),
  nosniff: response.headers.get('x-content-type-options'),
  referrer: response.headers.get('referrer-policy'),
});

test('/cabinet/ and every page path answer index.html with no-cache, an ETag and the security headers; the bundle is read once', async (t) => {
  const directory = writeBundle();
  const gateway = await gatewayServing(t, directory);
  rmSync(path.join(directory, 'index.html')); // read at start: nothing on disk is needed any more
  for (const page of ['/cabinet/', '/cabinet/keys', '/cabinet/login', '/cabinet/console/accounts/acc_1']) {
    const response = await fetch(`${gateway.url}${page}`, { headers: { 'accept-encoding': 'identity' } });
    t.is(response.status, 200, page);
    t.is(response.headers.get('content-type'), 'text/html; charset=utf-8');
    t.is(response.headers.get('cache-control'), 'no-cache');
    t.regex(response.headers.get('etag') ?? '', /^"[\w-]{27}"$/);
    t.deepEqual(securityHeaders(response), { csp: contentSecurityPolicy, nosniff: 'nosniff', referrer: 'no-referrer' });
    t.is(await response.text(), indexHtml);
  }
  t.is(
    contentSecurityPolicy,
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  );
  const head = await fetch(`${gateway.url}/cabinet/history`, { method: 'HEAD' });
  t.is(head.status, 200);
  t.is(head.headers.get('content-security-policy'), contentSecurityPolicy);
});

test('assets: a year-long immutable cache, 304 on If-None-Match, gzip when accepted; an unknown asset is a 404, never index.html', async (t) => {
  const gateway = await gatewayServing(t, writeBundle());
  const url = `${gateway.url}/cabinet/assets/main-ABCD1234.js`;
  const plain = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
  t.is(plain.status, 200);
  t.is(plain.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.is(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.is(plain.headers.get('content-encoding'), null);
  t.is(plain.headers.get('vary'), 'Accept-Encoding');
  t.deepEqual(securityHeaders(plain), { csp: contentSecurityPolicy, nosniff: 'nosniff', referrer: 'no-referrer' });
  t.is(await plain.text(), script);
  const etag = plain.headers.get('etag')!;

  // fetch() would decompress by itself; node:http shows the bytes as sent.
  const { request } = await import('node:http');
  const gzipped = await new Promise<{ status: number; encoding: string | undefined; body: Buffer }>((resolve, reject) => {
    request(url, { headers: { 'accept-encoding': 'gzip, deflate' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
  t.is(gzipped.status, 200);
  t.is(gzipped.encoding, 'gzip');
  t.true(gzipped.body.length < script.length);
  t.is(gunzipSync(gzipped.body).toString(), script);

  // As a browser revalidates (max-age=0): fetch() alone would add `cache-control: no-cache` to a
  // conditional request (the Fetch standard), which asks for the whole answer.
  const revalidated = await fetch(url, { headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' } });
  t.is(revalidated.status, 304);
  t.is(await revalidated.text(), '');

  const unknown = await fetch(`${gateway.url}/cabinet/assets/main-OLDBUILD.js`);
  t.is(unknown.status, 404);
  t.is(((await unknown.json()) as any).error.code, 'unknown_endpoint');
});

test('/cabinet/api/* paths no API route takes are the API 404, not the page; GET /cabinet redirects to /cabinet/', async (t) => {
  const gateway = await gatewayServing(t, writeBundle());
  const api = await fetch(`${gateway.url}/cabinet/api/no-such-thing`);
  t.is(api.status, 404);
  t.like(await api.json(), { error: { code: 'unknown_endpoint', message: 'Unknown endpoint: GET /cabinet/api/no-such-thing' } });
  const redirect = await fetch(`${gateway.url}/cabinet`, { redirect: 'manual' });
  t.is(redirect.status, 302);
  t.is(redirect.headers.get('location'), '/cabinet/');
  t.is((await fetch(`${gateway.url}/v1/models`)).status, 200, 'the API is untouched');
});

test('an installation without dist/web: the API works, /cabinet/ is 503 cabinet_not_built saying to run npm run build', async (t) => {
  const empty = mkdtempSync(path.join(tmpdir(), 'gw-web-none-'));
  const bundle = loadWebBundle(empty);
  t.false(bundle.built);
  const gateway = await gatewayServing(t, empty);
  const response = await fetch(`${gateway.url}/cabinet/keys`);
  t.is(response.status, 503);
  const body = (await response.json()) as any;
  t.is(body.error.code, 'cabinet_not_built');
  t.regex(body.error.message, /^The web cabinet is not built in this installation \(.*index\.html is missing\)\. Build it with `npm run build` in /);
  t.is((await fetch(`${gateway.url}/v1/models`)).status, 200);
});

test('the cabinet page rows are the last of the route table: a /cabinet/api/* route declared after them would be answered by the page route', (t) => {
  t.deepEqual(
    routeTable.slice(-2).map((route) => `${route.method} ${route.path}`),
    ['GET /cabinet/{*page}', 'GET /cabinet'],
  );
});
