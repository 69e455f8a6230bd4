// ava for every suite (`npm test`, `npx ava`). ava.fast.config.mjs and ava.processes.config.mjs
// split the same files in two (scripts/test-suites.mjs says which start processes).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allSuites, longPolesFirst } from './scripts/test-suites.mjs';

export const shared = {
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  workerThreads: false,
  timeout: '3m',
  concurrency: 4,
  sortTestFiles: longPolesFirst,
  // The `gateway` processes the tests start keep the CLI's cache (the configuration's parsed
  // data: src/config/parsed-config-cache.ts) in this run's own directory, not in the home's.
  environmentVariables: { GATEWAY_CACHE_DIR: mkdtempSync(path.join(tmpdir(), 'gw-test-cache-')) },
};

export default { ...shared, files: allSuites };
