import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { execa } from 'execa';
import { parse, stringify } from 'yaml';
import { installRoot } from '../../src/config/load.js';
import { countRun } from '../helpers/backends.js';
import { cliEnv, gatewayBin, runCli } from '../helpers/cli.js';

test('serve --json prints only its {url, pid} line on stdout, logs go to stderr, SIGTERM stops it cleanly', async (t) => {
  const env = cliEnv();
  const child = execa(gatewayBin, ['serve', '--port', '0', '--json'], { env: { ...env, GATEWAY_LOG_LEVEL: 'info' }, reject: false });
  let stdout = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(JSON.parse(stdout.split('\n')[0]!).url);
    });
    child.once('exit', () => reject(new Error('serve exited early')));
  });
  t.is((await fetch(`${url}/healthz`)).status, 200);
  t.is((await fetch(`${url}/v1/models`)).status, 200);
  child.kill('SIGTERM');
  const result = await child;
  t.is(result.exitCode, 0);
  const lines = String(result.stdout).trim().split('\n');
  t.is(lines.length, 1, 'stdout holds the one JSON line');
  t.like(JSON.parse(lines[0]!), { url });
  const logLines = String(result.stderr)
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const requests = logLines.filter((line) => line.msg === 'request');
  t.is(requests.length, 2, 'one structured log line per request');
  t.like(requests[1], { route: '/v1/models', status: 200, method: 'GET' });
  t.is(typeof requests[1].duration_ms, 'number');
  countRun('sqlite');
});

test('serve refuses to start on a catalog with a missing or absurd price', async (t) => {
  const env = cliEnv();
  const configPath = path.join(env.GATEWAY_DATA_DIR!, 'bad.yaml');
  writeFileSync(
    configPath,
    'providers:\n  sim: { kind: sim }\nmodels:\n  - { id: sim/chat, name: Chat, type: text, route: { provider: sim, model: chat }, pricing: { per_1m_input_tokens: "1" } }\n',
  );
  const result = await runCli(['serve', '--port', '0', '--config', configPath], env);
  t.is(result.exitCode, 78);
  t.regex(result.stderr, /sim\/chat pricing\.per_1m_output_tokens: a text model needs pricing\.per_1m_output_tokens/);
});

test('serve with metrics.listen: /metrics on its own listener, announced in the --json line; the API port answers 404 there', async (t) => {
  const env = cliEnv();
  const configPath = path.join(env.GATEWAY_DATA_DIR!, 'metrics-listen.yaml');
  const example = parse(readFileSync(path.join(installRoot, 'config', 'gateway.example.yaml'), 'utf8')) as Record<string, unknown>;
  writeFileSync(configPath, stringify({ ...example, metrics: { listen: '127.0.0.1:0' } }));
  const child = execa(gatewayBin, ['serve', '--port', '0', '--json', '--config', configPath], { env, reject: false });
  let stdout = '';
  const announced = await new Promise<{ url: string; metrics_url: string }>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(JSON.parse(stdout.split('\n')[0]!));
    });
    child.once('exit', () => reject(new Error('serve exited early')));
  });
  t.regex(announced.metrics_url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  t.not(new URL(announced.metrics_url).port, new URL(announced.url).port);
  const scraped = await fetch(announced.metrics_url);
  t.is(scraped.status, 200);
  t.regex(await scraped.text(), /# TYPE gateway_http_requests_total counter/);
  t.is((await fetch(`${announced.url}/metrics`)).status, 404);
  child.kill('SIGTERM');
  t.is((await child).exitCode, 0);
  countRun('sqlite');
});

test('serve refuses to start when metrics.token_env names a variable that is not set (it would serve /metrics without its token)', async (t) => {
  const env = cliEnv();
  const configPath = path.join(env.GATEWAY_DATA_DIR!, 'metrics-token.yaml');
  const example = parse(readFileSync(path.join(installRoot, 'config', 'gateway.example.yaml'), 'utf8')) as Record<string, unknown>;
  writeFileSync(configPath, stringify({ ...example, metrics: { token_env: 'GATEWAY_TEST_UNSET_METRICS_TOKEN' } }));
  const result = await runCli(['serve', '--port', '0', '--config', configPath], env);
  t.is(result.exitCode, 78);
  t.regex(result.stderr, /metrics\.token_env names GATEWAY_TEST_UNSET_METRICS_TOKEN, which is not set in this process's environment/);
  const other = await runCli(['accounts', 'ls', '--json', '--config', configPath], env);
  t.is(other.exitCode, 0, 'commands that serve nothing run without it');
});
