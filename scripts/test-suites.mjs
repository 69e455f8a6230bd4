// Which test files start processes: the compiled `gateway` binary (CLI, serve, worker, simulate),
// install.sh, or node itself (the README examples). They need `npm run build` first and take
// most of the suite's time, so they run apart from the in-process tests:
//   npm test            both (builds dist/ first)
//   npm run test:fast   the in-process tests only, no build, no dist/ needed
// test/suites.test.ts fails when a test file starts processes and is not listed here, or is
// listed and does not.
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

export const processSuites = [
  'test/admin/usage-cli.test.ts',
  'test/browser/**/*.test.ts',
  'test/cabinet/cabinet-cli.test.ts',
  'test/cli/admin-token-scopes.test.ts',
  'test/cli/backup-restore.test.ts',
  'test/cli/bot-cli.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/error-catalog.test.ts',
  'test/cli/files-cli.test.ts',
  'test/cli/file-permissions.test.ts',
  'test/cli/files-migrate-store.test.ts',
  'test/cli/infrastructure-errors.test.ts',
  'test/cli/invites-cli.test.ts',
  'test/cli/jobs-cli.test.ts',
  'test/cli/key-limits-cli.test.ts',
  'test/cli/manifest.test.ts',
  'test/cli/operator-cli.test.ts',
  'test/cli/payments-cli.test.ts',
  'test/cli/reconcile-cli.test.ts',
  'test/cli/requests-cli.test.ts',
  'test/cli/serve-drain.test.ts',
  'test/cli/serve-lock.test.ts',
  'test/cli/serve-redis-down.test.ts',
  'test/cli/serve.test.ts',
  'test/cli/users-cli.test.ts',
  'test/codes/codes-cli.test.ts',
  'test/install/install.test.ts',
  'test/chaos/**/*.test.ts',
  'test/bench/**/*.test.ts',
  'test/docs/readme-examples.test.ts',
  'test/e2e/claude-code.test.ts',
  'test/e2e/hold-owners-crash.test.ts',
  'test/e2e/jobs-crash.test.ts',
  'test/e2e/jobs-multi-instance.test.ts',
  'test/e2e/jobs-runner-stop.test.ts',
  'test/e2e/jobs-submit-once.test.ts',
  'test/e2e/key-cache.test.ts',
  'test/e2e/key-controls.test.ts',
  'test/e2e/multi-instance.test.ts',
  'test/e2e/otel-loading.test.ts',
  'test/e2e/serve-workers.test.ts',
  'test/e2e/usage-with-charge.test.ts',
  'test/http/hostile-bodies.test.ts',
  'test/http/rate-limit-redis.test.ts',
  'test/payments/yookassa-crash.test.ts',
];

export const allSuites = ['test/**/*.test.ts'];

// The long poles: files whose own run takes minutes (serial chaos and soak runs, a browser per
// test, the benchmark's smoke, clusters of processes killed and restarted). ava starts files in
// its list's order, `concurrency` at a time; one started last would run alone at the end while
// the other slots stay idle, so these start first, longest first (ava.config.mjs).
export const longSuites = [
  'test/chaos/chaos-short.test.ts',
  'test/chaos/soak-short.test.ts',
  'test/e2e/serve-workers.test.ts',
  'test/bench/**/*.test.ts',
  'test/chaos/hostile-heap.test.ts',
  'test/browser/**/*.test.ts',
  'test/e2e/multi-instance.test.ts',
  'test/e2e/jobs-crash.test.ts',
  'test/e2e/hold-owners-crash.test.ts',
  'test/install/install.test.ts',
];

/**
 * ava's `sortTestFiles`: the long poles first, in the order above, then every other file in
 * name order (ava's own default). `a` and `b` are absolute paths.
 */
export function longPolesFirst(a, b) {
  const rank = (file) => {
    const relative = path.relative(root, file).split(path.sep).join('/');
    const index = longSuites.findIndex((glob) => globToRegExp(glob).test(relative));
    return index === -1 ? longSuites.length : index;
  };
  return rank(a) - rank(b) || a.localeCompare(b, [], { numeric: true });
}

/** Whether `file` (relative to the repository, with /) is one of the process suites. */
export function isProcessSuite(file) {
  return processSuites.some((glob) => globToRegExp(glob).test(file));
}

/** The two wildcards used above: `**` (any folders, none included) and `*` (within one name). */
function globToRegExp(glob) {
  const pattern = glob
    .split('**/')
    .map((part) => part.split('*').map((text) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*'))
    .join('(?:[^/]+/)*');
  return new RegExp(`^${pattern}$`);
}
