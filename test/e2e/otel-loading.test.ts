// Issue 30 item 10: traces cost nothing when off, starting with the code loaded. A `gateway
// serve` of the built dist/ with the default config, through a start and a chat request,
// resolves no @opentelemetry module; the same with observability.otlp set does (which also shows
// that the recorder sees them). The recorder is a resolve hook given with NODE_OPTIONS
// (test/fixtures/module-loads/). The import graph's side: test/observability/tracer-loading.test.ts.
// Issue 37 item 3: the same default serve loads none of the packages only some configurations
// or some operations use (the guard of its idle memory that does not depend on the machine).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { parse, stringify } from 'yaml';
import { createTestDatabase } from '../helpers/backends.js';
import { exampleConfigPath } from '../helpers/gateway.js';
import { createClient, processEnv, startProcess } from '../helpers/processes.js';
import { repositoryRoot } from '../helpers/source-imports.js';

const recorder = path.join(repositoryRoot, 'test', 'fixtures', 'module-loads', 'record.mjs');

/** The module URLs a serve resolved from its start through one chat request and its stop. */
async function modulesOfServe(t: ExecutionContext, patch: Record<string, unknown>): Promise<string[]> {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-otel-loading-'));
  const configPath = path.join(dir, 'gateway.yaml');
  writeFileSync(configPath, stringify({ ...(parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, unknown>), ...patch }));
  const log = path.join(dir, 'modules.log');
  writeFileSync(log, '');
  const client = await createClient(database, 10_000_000n);
  const gateway = await startProcess(
    ['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'],
    processEnv(configPath, database, { NODE_OPTIONS: `--import=${recorder}`, GATEWAY_TEST_MODULE_LOG: log }),
  );
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${client.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/chat', messages: [{ role: 'user', content: 'hello' }] }),
  });
  t.is(response.status, 200, await response.text());
  await gateway.stop();
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

/** The default serve's modules, shared by the tests below (one process start for both). */
let defaultServe: Promise<string[]> | undefined;

/**
 * Packages a default serve (the config install.sh writes) has no use for through a start and a
 * chat request: S3 storage, image processing, payment providers and email it does not
 * configure, OIDC login, PostgreSQL and Redis, audio metadata, the Telegram bot, SigV4 signing
 * for Bedrock providers without a key pair, AWS's event-stream codec (Bedrock streams only).
 * Each is imported where it is first needed. Never imported at all: koa-body and formidable
 * (JSON is read by co-body's JSON reader, multipart streamed by busboy), undici's index (its
 * fetch, WebSocket, mocks and caches; src/util/http-client.ts requires the parts used).
 */
const notForDefaultServe = [
  '/node_modules/@aws-sdk/',
  '/node_modules/sharp/',
  '/node_modules/stripe/',
  '/node_modules/nodemailer/',
  '/node_modules/openid-client/',
  '/node_modules/pg/',
  '/node_modules/@redis/',
  '/node_modules/@keyv/redis/',
  '/node_modules/music-metadata/',
  '/node_modules/grammy/',
  '/node_modules/@smithy/signature-v4/',
  '/node_modules/@smithy/core/',
  '/node_modules/koa-body/',
  '/node_modules/formidable/',
  '/node_modules/undici/index.js',
];

test('a default serve loads none of the packages its configuration does not use', async (t) => {
  t.timeout(120_000);
  const modules = await (defaultServe ??= modulesOfServe(t, {}));
  t.true(modules.some((url) => url.includes('/node_modules/knex/')), 'the recorder saw the packages the serve loaded');
  t.deepEqual(
    modules.filter((url) => notForDefaultServe.some((fragment) => url.includes(fragment))),
    [],
  );
});

test('a default serve loads no @opentelemetry module; one with observability.otlp does', async (t) => {
  t.timeout(120_000);
  const off = await (defaultServe ??= modulesOfServe(t, {}));
  t.true(off.some((url) => url.includes('/node_modules/koa/')), 'the recorder saw the packages the serve loaded');
  t.deepEqual(
    off.filter((url) => url.includes('@opentelemetry') || url.includes('otlp-tracer')),
    [],
  );
  // A collector nobody listens on: the export fails in the background, the request is served all the same.
  const on = await modulesOfServe(t, { observability: { otlp: { endpoint: 'http://127.0.0.1:9/' } } });
  t.true(on.some((url) => url.includes('/node_modules/@opentelemetry/api/')));
  t.true(on.some((url) => url.endsWith('/dist/src/observability/otlp-tracer.js')));
});
