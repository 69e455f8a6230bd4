// ava for every suite (`npm test`, `npx ava`). ava.fast.config.mjs and ava.processes.config.mjs
// split the same files in two (scripts/test-suites.mjs says which start processes).
import { allSuites, longPolesFirst } from './scripts/test-suites.mjs';

export const shared = {
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  workerThreads: false,
  timeout: '3m',
  concurrency: 4,
  sortTestFiles: longPolesFirst,
};

export default { ...shared, files: allSuites };
