// The deployment files agree with the program (no container engine here: test/install/image-replay.slow.ts
// replays the Dockerfile; this reads the rest): deploy/compose.yaml runs only real commands and
// flags, passes only environment variables the config loader or deploy/gateway.yaml reads,
// gates every gateway process on the one-shot migrate, and puts nginx in front of every serve;
// deploy/gateway.yaml loads and points at the stack's services; the systemd unit outlasts a drain.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'ava';
import { parse } from 'yaml';
import { installRoot, loadConfig } from '../../src/config/load.js';
import { parseDuration, parseSize } from '../../src/config/units.js';
import * as audio from '../../src/dialects/openai-media/audio.js';
import * as images from '../../src/dialects/openai-media/images.js';
import * as videoUpscale from '../../src/dialects/openai-media/video-upscale.js';
import * as videos from '../../src/dialects/openai-media/videos.js';
import { catalogMarker, fromMarker } from '../../scripts/sync-deploy-config.mjs';

/** The upload caps the routes name (src/http/routes is not imported outside src/http). */
const mediaLimits: Record<string, unknown> = { ...audio, ...images, ...videoUpscale, ...videos };

const read = (file: string) => readFileSync(path.join(installRoot, file), 'utf8');

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
  restart?: string;
  stop_grace_period?: string;
  healthcheck?: { disable?: boolean };
  ports?: string[];
}

/** deploy/.env.example as compose reads deploy/.env. */
const dotEnv = Object.fromEntries(
  read('deploy/.env.example')
    .split('\n')
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error}, and $$ for a literal $. */
function interpolate(value: string): string {
  return value
    .replace(/\$\{([A-Z_][A-Z0-9_]*)(?::([-?])([^}]*))?\}/g, (_match, name: string, kind?: string, rest?: string) => {
      const set = dotEnv[name];
      if (set) return set;
      if (kind === '?') throw new Error(`${name} is required (${rest}) and .env.example leaves it empty`);
      return kind === '-' ? (rest ?? '') : '';
    })
    .replace(/\$\$/g, '$');
}

const compose = parse(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const gatewayServices = Object.entries(services).filter(([, service]) => service.image === 'gateway:local');
const serveServices = gatewayServices.filter(([, service]) => service.command?.[0] === 'serve').map(([name]) => name);
const deployConfig = parse(read('deploy/gateway.yaml')) as { server: { drain_timeout: string; port: number }; providers: Record<string, { api_key_env?: string }> };

test('every gateway service runs a real command with real flags', async (t) => {
  t.deepEqual(gatewayServices.map(([name]) => name).sort(), ['migrate', 'serve-1', 'serve-2', 'worker']);
  for (const [name, service] of gatewayServices) {
    const [command, ...args] = service.command!;
    const module = (await import(pathToFileURL(path.join(installRoot, 'commands', `${command}.ts`)).href)) as { default: { flags?: Record<string, { allowNo?: boolean }> } };
    const flags = module.default.flags ?? {};
    for (const arg of args) {
      const flag = /^--(no-)?([a-z-]+)$/.exec(arg);
      t.truthy(flag, `${name}: ${arg} is a flag`);
      t.truthy(flags[flag![2]!], `${name}: gateway ${command} has --${flag![2]}`);
      if (flag![1]) t.true(flags[flag![2]!]!.allowNo, `${name}: gateway ${command} takes --no-${flag![2]}`);
    }
  }
  t.deepEqual(serveServices, ['serve-1', 'serve-2']);
  t.deepEqual(services.worker!.command, ['worker']);
  t.deepEqual(services.migrate!.command, ['migrate']);
  for (const name of serveServices) t.deepEqual(services[name]!.command, ['serve', '--no-worker'], `${name}: the API only, jobs run in the worker`);
});

test('the gateway services pass only environment variables that the loader or deploy/gateway.yaml reads, and all of those it needs', (t) => {
  const loaderReads = new Set([...read('src/config/load.ts').matchAll(/env\.(GATEWAY_[A-Z_]+)/g)].map((match) => match[1]!));
  const config = parse(read('deploy/gateway.yaml'));
  const namedInConfig = new Set<string>([
    ...Object.values(deployConfig.providers).flatMap((provider) => (provider.api_key_env ? [provider.api_key_env] : [])),
    config.storage.blobs.access_key_id_env,
    config.storage.blobs.secret_access_key_env,
    ...(config.metrics?.token_env ? [config.metrics.token_env] : []),
  ]);
  for (const [name, service] of gatewayServices) {
    const variables = Object.keys(service.environment ?? {});
    for (const variable of variables) {
      if (variable.startsWith('GATEWAY_')) t.true(loaderReads.has(variable), `${name}: ${variable} is read by src/config/load.ts`);
      else t.true(namedInConfig.has(variable), `${name}: ${variable} is named by deploy/gateway.yaml (api_key_env, storage.blobs)`);
    }
    for (const variable of namedInConfig) t.true(variables.includes(variable), `${name}: passes ${variable}`);
    t.true(service.volumes!.includes('./gateway.yaml:/etc/gateway/gateway.yaml:ro'), `${name}: mounts deploy/gateway.yaml`);
    t.is(service.environment!.GATEWAY_CONFIG, '/etc/gateway/gateway.yaml', `${name}: reads it`);
  }
});

test('deploy/gateway.yaml, with the environment compose gives it, is PostgreSQL, Redis and the MinIO bucket of the stack', (t) => {
  const environment = Object.fromEntries(Object.entries(services['serve-1']!.environment!).map(([name, value]) => [name, interpolate(value)]));
  const config = loadConfig({ configPath: path.join(installRoot, 'deploy', 'gateway.yaml'), env: environment });
  t.is(config.database.client, 'postgres');
  t.is(config.database.url, `postgres://gateway:${dotEnv.POSTGRES_PASSWORD}@postgres:5432/gateway`);
  t.is(config.cache.url, 'redis://redis:6379');
  const blobs = config.storage.blobs;
  if (blobs.kind !== 's3') return t.fail(`storage.blobs.kind is ${blobs.kind}`);
  t.is(blobs.endpoint, 'http://minio:9000');
  t.true(blobs.forcePathStyle);
  t.deepEqual(blobs.credentials, { accessKeyId: dotEnv.MINIO_ROOT_USER, secretAccessKey: dotEnv.MINIO_ROOT_PASSWORD });
  t.regex(services.createbucket!.command!.join(' '), new RegExp(`mc mb --ignore-existing store/${blobs.bucket}$`), 'createbucket makes the bucket the gateway uses');
  t.is(config.server.host, '0.0.0.0');
  t.is(config.server.port, 8080);
  t.true(config.models.length > 0, 'the catalog is there');
  t.is(fromMarker(read('deploy/gateway.yaml'), 'deploy/gateway.yaml'), fromMarker(read('config/gateway.example.yaml'), 'config/gateway.example.yaml'),
    `from "${catalogMarker}" on, deploy/gateway.yaml is the example: run node scripts/sync-deploy-config.mjs`);
});

test('the one-shot migrate runs first and alone; every other gateway process waits for it to succeed', (t) => {
  const migrate = services.migrate!;
  t.is(migrate.restart, 'no');
  t.deepEqual(migrate.depends_on, { postgres: { condition: 'service_healthy' } });
  for (const [name, service] of gatewayServices) {
    if (name === 'migrate') continue;
    const dependsOn = service.depends_on as Record<string, { condition: string }>;
    t.is(dependsOn.migrate?.condition, 'service_completed_successfully', `${name} waits for migrate`);
    t.is(dependsOn.createbucket?.condition, 'service_completed_successfully', `${name} waits for the bucket`);
    t.true(parseDuration(service.stop_grace_period!) > parseDuration(deployConfig.server.drain_timeout), `${name}: stop_grace_period outlasts server.drain_timeout`);
  }
  t.true(services.worker!.healthcheck!.disable, 'the worker has no HTTP health check');
  t.true(services.postgres!.environment!.POSTGRES_PASSWORD!.startsWith('${POSTGRES_PASSWORD:?'), 'no default password');
});

test('nginx balances every serve instance and lets streams and the largest upload through', (t) => {
  const lb = services.lb!;
  t.true(lb.volumes!.includes('./nginx.conf:/etc/nginx/nginx.conf:ro'));
  t.deepEqual(lb.depends_on, Object.fromEntries(serveServices.map((name) => [name, { condition: 'service_healthy' }])));
  const nginx = read('deploy/nginx.conf').replace(/#.*$/gm, '');
  const upstream = /upstream gateway \{([^}]*)\}/.exec(nginx)![1]!;
  t.deepEqual([...upstream.matchAll(/server (\S+?):(\d+)/g)].map((match) => `${match[1]}:${match[2]}`), serveServices.map((name) => `${name}:${deployConfig.server.port}`));
  t.regex(nginx, /proxy_pass http:\/\/gateway;/);
  t.regex(nginx, /proxy_buffering off;/, 'server-sent events are not buffered');
  t.regex(nginx, /proxy_http_version 1\.1;/);
  const readTimeout = parseDuration(/proxy_read_timeout (\S+);/.exec(nginx)![1]!);
  t.true(readTimeout > parseDuration('10m'), 'a non-streamed call may wait the default provider timeout (10m)');
  // Every upload route's cap (src/http/routes: readMultipart's maxFileBytes × maxFiles).
  const routes = path.join(installRoot, 'src', 'http', 'routes');
  const caps = readdirSync(routes).flatMap((file) =>
    [...readFileSync(path.join(routes, file), 'utf8').matchAll(/readMultipart\(ctx, \{ maxFileBytes: (\w+), maxFiles: (\d+) \}\)/g)].map(
      (match) => (mediaLimits[match[1]!] as number) * Number(match[2]),
    ),
  );
  t.true(caps.length >= 5 && caps.every(Number.isFinite), `upload caps found: ${caps.join(', ')}`);
  const bodyLimit = parseSize(/client_max_body_size (\d+)m;/.exec(nginx)![1]! + 'MB');
  t.true(bodyLimit >= Math.max(...caps), `client_max_body_size (${bodyLimit}) >= the largest upload (${Math.max(...caps)})`);
  t.true(bodyLimit - Math.max(...caps) <= 16 * 1024 * 1024, 'and not far above it (room for the form fields)');
});

test('the systemd unit runs serve as the gateway user with only its data directory writable, and outlasts a drain', (t) => {
  const unit = read('deploy/systemd/gateway.service');
  const settings = new Map<string, string[]>();
  for (const line of unit.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match) settings.set(match[1]!, [...(settings.get(match[1]!) ?? []), match[2]!]);
  }
  const one = (name: string) => settings.get(name)?.[0];
  t.is(one('ExecStart'), '/opt/gateway/bin/gateway serve');
  t.is(one('User'), 'gateway');
  t.is(one('KillSignal'), 'SIGTERM');
  t.is(one('Restart'), 'on-failure');
  const example = parse(read('config/gateway.example.yaml')) as { server: { drain_timeout: string } };
  t.true(parseDuration(one('TimeoutStopSec')!) > parseDuration(example.server.drain_timeout), 'TimeoutStopSec outlasts server.drain_timeout');
  t.true(settings.get('Environment')!.includes('GATEWAY_DATA_DIR=/var/lib/gateway'));
  t.is(one('ProtectSystem'), 'strict');
  t.is(one('ReadWritePaths'), '/var/lib/gateway');
  t.is(one('StateDirectory'), 'gateway');
  t.is(one('NoNewPrivileges'), 'yes');
  t.false(settings.has('MemoryDenyWriteExecute'), 'V8 needs writable and executable memory');
});
