// The container image's steps, replayed in a clean directory (a command of its own, `npm run
// test:image`, ~2 min on a quiet machine and up to 9 under load: two npm installs, the SQLite
// driver compiled, a build; `npm test` runs the static check test/install/image-static.test.ts
// instead — run this one after changing the Dockerfile, .dockerignore or the dependencies): no container engine runs on the
// development machines or in CI (`docker info` cannot reach a daemon), so this reads the
// repository's Dockerfile and does what a builder would do with it — each stage in a folder of
// its own, its COPY lines from the repository (minus .dockerignore) or from an earlier stage,
// its npm lines run there — then starts the runtime stage's ENTRYPOINT + CMD with its ENV, as
// the container would, and checks what the image promises: production dependencies only, the
// native modules load, migrate and serve work on a fresh data directory, /readyz answers, the
// HEALTHCHECK passes, SIGTERM stops it cleanly.
// What it cannot replay: the base image itself (Node 20 here too) and the system lines
// (apt-get, the user), listed in `systemLines` (test/install/dockerfile.ts): a new RUN line must be one of them or
// an npm line, so nothing the image does goes untried here.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { execa } from 'execa';
import { installRoot } from '../../src/config/load.js';
import { countRun } from '../helpers/backends.js';
import { devOnly, ignoredByDockerignore, repositoryDockerfile, type Stage, systemLines } from './dockerfile.js';

const port = 42150;

test('the Dockerfile built in a clean directory: production dependencies only, and the runtime stage migrates, serves, passes its health check and stops on SIGTERM', async (t) => {
  t.timeout(600_000); // two npm installs side by side (the SQLite driver compiles) and a TypeScript build: ~2 min on a quiet machine
  const stages = repositoryDockerfile();
  t.deepEqual(
    stages.map((stage) => `${stage.name} FROM ${stage.from}`),
    ['build FROM node:20-bookworm-slim', 'deps FROM node:20-bookworm-slim', 'runtime FROM node:20-bookworm-slim'],
    'three stages on the Node 20 the machines run (DESIGN §1)',
  );

  const root = mkdtempSync(path.join(tmpdir(), 'gw-image-'));
  const workdirs = new Map<string, string>(); // stage → its WORKDIR inside the image
  const folder = (stage: string) => path.join(root, stage);
  /** An absolute path of a stage's file system, mapped into its folder (only under its WORKDIR). */
  const local = (stage: string, imagePath: string) => {
    const workdir = workdirs.get(stage);
    if (!workdir) throw new Error(`stage ${stage} uses ${imagePath} before its WORKDIR`);
    const relative = path.posix.relative(workdir, path.posix.resolve(workdir, imagePath));
    if (relative.startsWith('..')) throw new Error(`stage ${stage}: ${imagePath} is outside its WORKDIR ${workdir}`);
    return path.join(folder(stage), relative);
  };
  const skipped: string[] = [];
  const environment: Record<string, string> = {};
  let entrypoint: string[] = [];
  let command: string[] = [];
  let healthcheck: string[] = [];

  /** Replays one stage; the stages that do not depend on each other run side by side, as BuildKit runs them. */
  async function replay(stage: Stage): Promise<void> {
    mkdirSync(folder(stage.name), { recursive: true });
    for (const { keyword, args, line } of stage.instructions) {
      const where = `Dockerfile line ${line} (${stage.name})`;
      if (keyword === 'WORKDIR') workdirs.set(stage.name, args);
      else if (keyword === 'COPY') {
        const words = args.split(/\s+/);
        const fromStage = words[0]!.startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
        const destination = words.pop()!;
        for (const source of words) {
          let sourcePath: string;
          if (fromStage) sourcePath = local(fromStage, source);
          else {
            t.false(ignoredByDockerignore(source), `${where}: ${source} is excluded from the build context by .dockerignore`);
            sourcePath = path.join(installRoot, source);
          }
          t.true(existsSync(sourcePath), `${where}: ${source} exists`);
          const into = destination.endsWith('/') || words.length > 1;
          const target = into ? path.join(local(stage.name, destination), path.basename(source)) : local(stage.name, destination);
          cpSync(sourcePath, target, { recursive: true, verbatimSymlinks: true });
        }
      } else if (keyword === 'RUN') {
        if (args.startsWith('npm ')) {
          // The npm cache of this machine is warm: nothing needs the network.
          const run = args.startsWith('npm ci ') ? `${args} --prefer-offline` : args;
          const result = await execa('sh', ['-c', run], { cwd: local(stage.name, '.'), reject: false, all: true });
          if (result.exitCode !== 0) throw new Error(`${where}: ${run} failed (${result.exitCode}):\n${String(result.all).slice(-3000)}`);
        } else {
          t.true(systemLines.some((expression) => expression.test(args)), `${where}: RUN ${args} is neither an npm line nor a known system line`);
          skipped.push(args);
        }
      } else if (keyword === 'ENV') {
        for (const [, name, value] of args.matchAll(/(\w+)=(\S+)/g)) environment[name!] = value!;
      } else if (keyword === 'ENTRYPOINT') entrypoint = JSON.parse(args);
      else if (keyword === 'CMD') command = JSON.parse(args);
      else if (keyword === 'HEALTHCHECK') healthcheck = JSON.parse(/\bCMD\s+(\[.*\])$/.exec(args)![1]!);
      else t.true(['USER', 'VOLUME', 'EXPOSE'].includes(keyword), `${where}: ${keyword} is an instruction this replay knows`);
    }
  }
  const [build, deps, runtime] = stages as [Stage, Stage, Stage];
  await Promise.all([replay(build), replay(deps)]);
  await replay(runtime);
  t.is(skipped.length, systemLines.length, 'each system line appears once');

  const runtimeDir = folder('runtime');
  t.deepEqual(
    readdirSync(runtimeDir).sort(),
    ['bin', 'config', 'dist', 'node_modules', 'oclif.manifest.json', 'package-lock.json', 'package.json', 'scripts'],
    'the runtime stage holds what runs, no sources or tests',
  );
  t.deepEqual(readdirSync(path.join(runtimeDir, 'config')), ['gateway.example.yaml']);
  t.deepEqual(readdirSync(path.join(runtimeDir, 'scripts')), ['build-manifest.mjs'], 'the one script it runs');
  t.true(Object.keys(JSON.parse(readFileSync(path.join(runtimeDir, 'oclif.manifest.json'), 'utf8')).commands).includes('serve'), 'the command manifest, made in the runtime stage');
  t.true(existsSync(path.join(runtimeDir, 'dist', 'migrations', '20261122000000_foundation.js')), 'the compiled migrations (src/db/migration-source.ts reads dist/migrations)');
  t.true(existsSync(path.join(runtimeDir, 'dist', 'web', 'index.html')), 'the web cabinet (scripts/build-web.mjs → dist/web)');
  const present = devOnly.filter((name) => existsSync(path.join(runtimeDir, 'node_modules', name)));
  t.deepEqual(present, [], 'no development dependency in the runtime node_modules');
  const loads = await execa('node', ['-e', "require('sqlite3'); require('sharp'); require('pg'); console.log('loaded')"], { cwd: runtimeDir, reject: false, all: true });
  t.is(loads.stdout, 'loaded', `the native modules load: ${loads.all}`);

  t.deepEqual(environment, { NODE_ENV: 'production', GATEWAY_HOST: '0.0.0.0', GATEWAY_PORT: '8080', GATEWAY_DATA_DIR: '/var/lib/gateway' });
  t.deepEqual(entrypoint, ['/opt/gateway/bin/gateway']);
  t.deepEqual(command, ['serve']);
  const binary = local('runtime', entrypoint[0]!);
  // The container's environment: the image's ENV, its data directory in this clean folder, a port of this test's range.
  const env = { PATH: process.env.PATH!, HOME: process.env.HOME!, ...environment, GATEWAY_DATA_DIR: path.join(root, 'data'), GATEWAY_PORT: String(port), GATEWAY_LOG_LEVEL: 'warn' };
  mkdirSync(env.GATEWAY_DATA_DIR);

  const help = await execa(binary, ['--help'], { env, extendEnv: false, reject: false });
  t.is(help.exitCode, 0, help.stderr);
  for (const name of ['migrate', 'serve', 'worker']) t.regex(help.stdout, new RegExp(`\\n\\s+${name}\\s`), `--help lists ${name}`);

  const migrate = await execa(binary, ['migrate', '--json'], { env, extendEnv: false, reject: false });
  t.is(migrate.exitCode, 0, migrate.stderr);
  t.true((JSON.parse(migrate.stdout) as { applied: string[] }).applied.includes('20261122000000_foundation'));

  const serve = execa(binary, [...command, '--json'], { env, extendEnv: false, reject: false, buffer: false });
  const announced = await new Promise<{ url: string }>((resolve, reject) => {
    let output = '';
    serve.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      const line = output.split('\n').find((candidate) => candidate.startsWith('{"url"'));
      if (line) resolve(JSON.parse(line));
    });
    serve.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    serve.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${output.slice(-2000)}`)));
  });
  t.teardown(() => serve.kill('SIGKILL'));
  t.is(announced.url, `http://0.0.0.0:${port}`, 'the image listens on every interface, on GATEWAY_PORT');
  const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
  t.is(ready.status, 200);
  t.deepEqual(await ready.json(), { status: 'ready' });
  const cabinet = await fetch(`http://127.0.0.1:${port}/cabinet/`);
  t.is(cabinet.status, 200, 'the image serves the web cabinet (the build stage builds it into dist/web)');
  t.regex(cabinet.headers.get('content-type') ?? '', /^text\/html/);
  const health = await execa(healthcheck[0]!, healthcheck.slice(1), { env, extendEnv: false, reject: false });
  t.is(health.exitCode, 0, `the HEALTHCHECK command passes: ${health.stderr}`);

  serve.kill('SIGTERM');
  const stopped = await serve;
  t.is(stopped.exitCode, 0, 'SIGTERM stops serve gracefully (exit 0)');
  const after = await execa(healthcheck[0]!, healthcheck.slice(1), { env, extendEnv: false, reject: false });
  t.is(after.exitCode, 1, 'the HEALTHCHECK fails once serve is gone');
  countRun('sqlite');
});
