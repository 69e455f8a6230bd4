// Issue 30 item 10: traces cost nothing when off, starting with the code loaded. A `gateway
// serve` of the built dist/ with the default config, through a start and a chat request,
// resolves no @opentelemetry module; the same with observability.otlp set does (which also shows
// that the recorder sees them). The recorder is a resolve hook given with NODE_OPTIONS
// (test/fixtures/module-loads/). The import graph's side: test/observability/tracer-loading.test.ts.
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

test('a default serve loads no @opentelemetry module; one with observability.otlp does', async (t) => {
  t.timeout(120_000);
  const off = await modulesOfServe(t, {});
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
