// What the shipped deployments do with /metrics (issue 30 item 3; test/http/metrics-access.test.ts
// shows each mode through HTTP). The compose stack requires a Bearer token, which every gateway
// service must be given (no default) and which .env.example sets long enough to be accepted;
// nginx does not pass /metrics to the published port. The image alone runs the example config:
// no token, no listener, so /metrics answers loopback only and an image on 0.0.0.0 does not leak.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { installRoot, loadConfig, minimumMetricsTokenLength } from '../../src/config/load.js';

const read = (file: string) => readFileSync(path.join(installRoot, file), 'utf8');
const compose = parse(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, { image?: string; environment?: Record<string, string> }> };
const dotEnv = Object.fromEntries(
  read('deploy/.env.example')
    .split('\n')
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);

test('compose: every gateway process requires the Bearer token of METRICS_TOKEN, which deploy/.env must set', (t) => {
  const config = loadConfig({ configPath: path.join(installRoot, 'deploy', 'gateway.yaml'), env: { METRICS_TOKEN: dotEnv.METRICS_TOKEN } });
  t.is(config.metrics.tokenEnv, 'METRICS_TOKEN');
  t.is(config.metrics.token, dotEnv.METRICS_TOKEN);
  t.is(config.metrics.tokenProblem, undefined, `.env.example's token has at least ${minimumMetricsTokenLength} characters`);
  t.is(config.metrics.listen, undefined, 'served on the API port, which only the stack network reaches');
  for (const [name, service] of Object.entries(compose.services).filter(([, each]) => each.image === 'gateway:local')) {
    t.regex(service.environment!.METRICS_TOKEN!, /^\$\{METRICS_TOKEN:\?[^}]+\}$/, `${name}: METRICS_TOKEN is required, with no default`);
  }
  const nginx = read('deploy/nginx.conf').replace(/#.*$/gm, '');
  t.regex(nginx, /location = \/metrics \{\s*return 404;\s*\}/, 'the published port does not serve /metrics');
});

test('the image alone (the example config): no token and no listener, so /metrics answers loopback peers only', (t) => {
  const config = loadConfig({ configPath: path.join(installRoot, 'config', 'gateway.example.yaml'), env: { GATEWAY_HOST: '0.0.0.0' } });
  t.is(config.server.host, '0.0.0.0');
  t.deepEqual(config.metrics, { tokenEnv: undefined, token: undefined, tokenProblem: undefined, listen: undefined });
});
