// Which test files start processes: the compiled `gateway` binary (CLI, serve, worker, simulate),
// install.sh, or node itself (the README examples). They need `npm run build` first and take
// most of the suite's time, so they run apart from the in-process tests:
//   npm test            both (builds dist/ first)
//   npm run test:fast   the in-process tests only, no build, no dist/ needed
// test/suites.test.ts fails when a test file starts processes and is not listed here, or is
// listed and does not.
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
  'test/e2e/usage-with-charge.test.ts',
  'test/http/hostile-bodies.test.ts',
  'test/http/rate-limit-redis.test.ts',
  'test/payments/yookassa-crash.test.ts',
];

export const allSuites = ['test/**/*.test.ts'];

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
