// The container image, checked without building it (the full replay, two npm installs and a
// build, is `npm run test:image`: test/install/image-replay.slow.ts). What this catches in
// seconds: a COPY of something missing or excluded by .dockerignore, a source folder the build
// needs but the build stage does not copy, a RUN line the replay would not know, the runtime
// settings changed by accident, and — the commonest way an image breaks — a module of the
// program importing a package that is only a development dependency (the runtime stage installs
// production dependencies only).
import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { installRoot } from '../../src/config/load.js';
import { ignoredByDockerignore, repositoryDockerfile, systemLines } from './dockerfile.js';

const stages = repositoryDockerfile();
const packageJson = JSON.parse(readFileSync(path.join(installRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

test('three stages on the Node 20 the machines run; every RUN line is an npm line or a known system line', (t) => {
  t.deepEqual(
    stages.map((stage) => `${stage.name} FROM ${stage.from}`),
    ['build FROM node:20-bookworm-slim', 'deps FROM node:20-bookworm-slim', 'runtime FROM node:20-bookworm-slim'],
  );
  const runs = stages.flatMap((stage) => stage.instructions.filter((instruction) => instruction.keyword === 'RUN'));
  const unknown = runs.filter(({ args }) => !args.startsWith('npm ') && !systemLines.some((expression) => expression.test(args)));
  t.deepEqual(unknown.map(({ line, args }) => `line ${line}: ${args}`), []);
  const deps = stages.find((stage) => stage.name === 'deps')!;
  t.true(
    deps.instructions.some(({ keyword, args }) => keyword === 'RUN' && /^npm ci\b.*--omit=dev\b/.test(args)),
    'the runtime dependencies are installed without the development ones',
  );
});

test('every COPY from the build context exists and is not excluded by .dockerignore', (t) => {
  const problems: string[] = [];
  for (const stage of stages) {
    for (const { keyword, args, line } of stage.instructions) {
      if (keyword !== 'COPY' || args.startsWith('--from=')) continue;
      for (const source of args.split(/\s+/).slice(0, -1)) {
        if (!existsSync(path.join(installRoot, source))) problems.push(`line ${line}: ${source} does not exist`);
        if (ignoredByDockerignore(source)) problems.push(`line ${line}: ${source} is excluded by .dockerignore`);
      }
    }
  }
  t.deepEqual(problems, []);
});

test('the build stage copies every folder the TypeScript build compiles', (t) => {
  const tsconfig = JSON.parse(readFileSync(path.join(installRoot, 'tsconfig.json'), 'utf8')) as { include: string[] };
  const roots = [...new Set(tsconfig.include.map((pattern) => pattern.split('/')[0]!))];
  const build = stages.find((stage) => stage.name === 'build')!;
  const copied = build.instructions.filter(({ keyword }) => keyword === 'COPY').flatMap(({ args }) => args.split(/\s+/).slice(0, -1));
  t.deepEqual(roots.filter((root) => !copied.includes(root)), [], `tsconfig.json compiles ${roots.join(', ')}`);
});

test('the build stage runs `npm run build:dist` and copies what it runs beyond tsc: the web cabinet (web/) and its build script', (t) => {
  const { scripts } = JSON.parse(readFileSync(path.join(installRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.is(scripts.build, 'npm run --silent build:dist && npm run --silent build:manifest');
  const buildScripts = [...scripts['build:dist']!.matchAll(/\bnode (scripts\/[\w.-]+)/g)].map((match) => match[1]!);
  t.deepEqual(buildScripts, ['scripts/build-web.mjs']);
  const build = stages.find((stage) => stage.name === 'build')!;
  t.true(build.instructions.some(({ keyword, args }) => keyword === 'RUN' && args === 'npm run build:dist'));
  const copied = build.instructions.filter(({ keyword }) => keyword === 'COPY').flatMap(({ args }) => args.split(/\s+/).slice(0, -1));
  const needed = [...buildScripts, 'web', 'web/tsconfig.json'];
  t.deepEqual(needed.filter((file) => !copied.some((source) => file === source || file.startsWith(`${source}/`))), []);
});

test('the runtime stage makes the command manifest where the commands load (its compiled SQLite driver), before it drops to the gateway user', (t) => {
  const { scripts } = JSON.parse(readFileSync(path.join(installRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.is(scripts['build:manifest'], 'node scripts/build-manifest.mjs');
  const runtime = stages.find((stage) => stage.name === 'runtime')!;
  const index = (keyword: string, args: string) => runtime.instructions.findIndex((instruction) => instruction.keyword === keyword && instruction.args === args);
  const copy = index('COPY', 'scripts/build-manifest.mjs ./scripts/');
  const run = index('RUN', 'npm run --silent build:manifest');
  t.true(copy >= 0 && run > copy, 'the script is copied, then run');
  t.true(run > index('COPY', '--from=build /build/dist ./dist') && run > index('COPY', '--from=deps /deps/node_modules ./node_modules'), 'after dist/ and node_modules');
  t.true(run < index('USER', 'gateway'), 'as root, who owns /opt/gateway');
});

test('the runtime settings: environment, entry point, command and health check', (t) => {
  const runtime = stages.find((stage) => stage.name === 'runtime')!;
  const value = (keyword: string) => runtime.instructions.find((instruction) => instruction.keyword === keyword)?.args;
  t.deepEqual(JSON.parse(value('ENTRYPOINT')!), ['/opt/gateway/bin/gateway']);
  t.deepEqual(JSON.parse(value('CMD')!), ['serve']);
  const environment = Object.fromEntries([...value('ENV')!.matchAll(/(\w+)=(\S+)/g)].map(([, name, setting]) => [name, setting]));
  t.deepEqual(environment, { NODE_ENV: 'production', GATEWAY_HOST: '0.0.0.0', GATEWAY_PORT: '8080', GATEWAY_DATA_DIR: '/var/lib/gateway' });
  t.regex(value('HEALTHCHECK')!, /\/healthz/);
});

/** The TypeScript files under a folder of the repository. */
function sources(folder: string): string[] {
  const full = path.join(installRoot, folder);
  if (!existsSync(full)) return [];
  return readdirSync(full).flatMap((name) => {
    const relative = path.join(folder, name);
    if (statSync(path.join(installRoot, relative)).isDirectory()) return sources(relative);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [relative] : [];
  });
}

/** `a`, `@scope/b` from `a/sub/path`, `@scope/b/sub`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

test('what the program imports at run time is a production dependency or part of Node', (t) => {
  const builtins = new Set(builtinModules);
  const offending: string[] = [];
  for (const file of ['src', 'commands', 'migrations'].flatMap(sources)) {
    const text = readFileSync(path.join(installRoot, file), 'utf8');
    // Static imports and re-exports (type-only ones vanish from the build), and dynamic imports.
    const statics = [...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+'([^']+)'/gm)].map((match) => match[1]!);
    const dynamics = [...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((match) => match[1]!);
    const bare = [...statics, ...dynamics, ...[...text.matchAll(/^\s*import\s+'([^']+)'/gm)].map((match) => match[1]!)].filter(
      (specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'),
    );
    for (const specifier of bare) {
      const name = packageOf(specifier);
      if (!builtins.has(name) && packageJson.dependencies[name] === undefined) offending.push(`${file}: ${specifier}`);
    }
  }
  t.deepEqual(offending, [], 'move these to dependencies, or keep them out of the program');
});
