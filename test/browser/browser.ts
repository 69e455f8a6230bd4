// What the browser tests share: Debian's Chromium driven by playwright-core, a real `gateway
// serve` (the built dist/, its built-in simulator) over a test database, login links printed
// by the CLI, console errors collected from every page, and axe-core run in the page.
// Without Chromium the tests are listed as skipped, saying how to install it — except under
// GATEWAY_TEST_REQUIRE_BACKENDS=1 (CI, .ci/run installs it), where they fail.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { stringify } from 'yaml';
import { backends, countRun, createTestDatabase, missingServers, pgUrl, type TestDatabase } from '../helpers/backends.js';
import { runCliJson } from '../helpers/cli.js';
import { fastJobsConfig } from '../helpers/job-config.js';
import { processEnv, startProcess, type RunningProcess } from '../helpers/processes.js';

export const chromiumPath = process.env.GATEWAY_TEST_CHROMIUM ?? '/usr/bin/chromium';
const chromiumMissing = existsSync(chromiumPath) ? undefined : `Chromium is not installed at ${chromiumPath} (apt-get install -y chromium, or GATEWAY_TEST_CHROMIUM=path)`;
const requireBackends = process.env.GATEWAY_TEST_REQUIRE_BACKENDS === '1';

/**
 * `title [sqlite]` and `title [postgres]` (as testOnBackends registers them) with a browser;
 * without Chromium one visible skip (or, under GATEWAY_TEST_REQUIRE_BACKENDS=1, one failure)
 * naming what is missing. Serial within a file: each test runs a gateway and a Chromium, and
 * two cores shared by the whole suite run them faster one at a time than side by side.
 */
export function testInBrowser(title: string, body: (t: ExecutionContext, database: TestDatabase, browser: Browser) => Promise<void>): void {
  if (chromiumMissing) {
    if (requireBackends) test(title, (t) => t.fail(`${chromiumMissing}: GATEWAY_TEST_REQUIRE_BACKENDS=1 requires the browser tests to run`));
    else test.skip(`${title} (SKIPPED: ${chromiumMissing})`, () => {});
    return;
  }
  if (!pgUrl) test.skip(`${title} [postgres] (${missingServers(['postgres'])})`, () => {});
  for (const backend of backends) {
    test.serial(`${title} [${backend}]`, async (t) => {
      t.timeout(300_000); // ~1 min on a quiet machine; CI runs it beside the rest of the suite
      const database = await createTestDatabase(backend);
      t.teardown(() => database.drop());
      const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
      t.teardown(() => browser.close());
      await body(t, database, browser);
      countRun(backend);
    });
  }
}

export interface CabinetGateway {
  readonly url: string;
  readonly env: Record<string, string>;
  readonly process: RunningProcess;
  /** Runs `gateway <args> --json` against the same database and config. */
  cli<T = any>(args: string[]): Promise<T>;
  /** A one-time login link from `gateway cabinet link --json`, pointed at this gateway's address (the link's own origin is cabinet.public_url). */
  link(who: { account: string } | { admin: true }): Promise<string>;
}

/**
 * `gateway serve` with the example config (fast job runner, its built-in simulator) over
 * `database`. `options.config` changes the config before it is written (sign-up, email, OIDC);
 * `options.env` adds environment variables (the secrets those name).
 */
export async function startCabinetGateway(
  t: ExecutionContext,
  database: TestDatabase,
  options: { config?: (config: Record<string, any>) => void; env?: Record<string, string> } = {},
): Promise<CabinetGateway> {
  const configPath = path.join(mkdtempSync(path.join(tmpdir(), 'gw-browser-')), 'gateway.yaml');
  const config = fastJobsConfig() as Record<string, any>;
  options.config?.(config);
  writeFileSync(configPath, stringify(config));
  const env = { ...processEnv(configPath, database), ...options.env };
  const serve = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0'], env);
  t.teardown(() => serve.stop());
  const cli = <T>(args: string[]) => runCliJson<T>(args, env);
  return {
    url: serve.url,
    env,
    process: serve,
    cli,
    async link(who) {
      const printed = await cli<{ url: string; expires_at: string }>(['cabinet', 'link', ...('account' in who ? ['--account', who.account] : ['--admin'])]);
      const link = new URL(printed.url);
      if (link.pathname !== '/cabinet/login' || !/^#token=gwl_[\w-]+$/.test(link.hash)) throw new Error(`unexpected login link ${printed.url}`);
      return `${serve.url}${link.pathname}${link.hash}`;
    },
  };
}

export interface WatchedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Console messages of level error and uncaught exceptions, from every page of the context. */
  readonly errors: string[];
}

/** A fresh browser context (its own cookies) with English or Russian as the browser's language. */
export async function openPage(browser: Browser, options: { locale?: string } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ locale: options.locale ?? 'en-US', viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  context.on('page', (page) => watch(page, errors));
  const page = await context.newPage();
  return { page, context, errors };
}

function watch(page: Page, errors: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: console.error: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught: ${error.message}`));
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. It is evaluated over
 * the DevTools protocol, which the page's CSP (script-src 'self') does not govern, so the page
 * is checked under its real policy.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const inPage = globalThis as any; // this function runs in the page
    const result = await inPage.axe.run(inPage.document, { resultTypes: ['violations'] });
    return (result.violations as any[]).map((violation) => ({
      id: violation.id as string,
      impact: violation.impact as string | null,
      help: violation.help as string,
      targets: (violation.nodes as any[]).map((node) => String(node.target)),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
