// The split of the suite (scripts/test-suites.mjs): a test file that starts processes — the
// `gateway` binary through the CLI/process helpers, install.sh, node — is listed among the
// process suites (so `npm run test:fast` never needs dist/ or spawns anything), and a listed
// file does start processes (so nothing fast hides among the slow ones).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { installRoot } from '../src/config/load.js';
import { isProcessSuite } from '../scripts/test-suites.mjs';

const testRoot = path.join(installRoot, 'test');

function testFiles(folder = testRoot): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [path.relative(installRoot, full)] : [];
  });
}

/** What starts a process: node's and execa's spawners, and the helpers that run the binary. */
const startsProcesses = /from '(node:child_process|execa)'|\b(runCli|runCliJson|startServeProcess|startProcess|startSimulatorProcess|gatewayBin)\b/;

/** The file and the test modules it imports (not the helpers, whose spawners are matched by name above; not src/). */
function sourceWithLocalImports(file: string, seen = new Set<string>()): string {
  if (seen.has(file)) return '';
  seen.add(file);
  const source = readFileSync(path.join(installRoot, file), 'utf8');
  const imported = [...source.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)]
    .map((match) => path.normalize(path.join(path.dirname(file), `${match[1]}.ts`)))
    .filter((local) => local.startsWith(`test${path.sep}`) && !local.startsWith(path.join('test', 'helpers')) && existsSync(path.join(installRoot, local)));
  return [source, ...imported.map((local) => sourceWithLocalImports(local, seen))].join('\n');
}

test('every test file that starts processes is a process suite, and every process suite starts processes', (t) => {
  const files = testFiles().filter((file) => file !== path.join('test', 'suites.test.ts')); // its own patterns name the spawners
  t.true(files.length > 50, `${files.length} test files found`);
  const unlisted = files.filter((file) => startsProcesses.test(sourceWithLocalImports(file)) && !isProcessSuite(file));
  const idle = files.filter((file) => isProcessSuite(file) && !startsProcesses.test(sourceWithLocalImports(file)));
  t.deepEqual(unlisted, [], 'start processes but run with the fast suites: add them to scripts/test-suites.mjs');
  t.deepEqual(idle, [], 'listed as process suites but start none: remove them from scripts/test-suites.mjs');
});
