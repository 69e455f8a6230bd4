#!/usr/bin/env node
// Screenshots of the web cabinet's main pages for docs/cabinet.md (docs/screenshots/*.png):
// a throw-away gateway (SQLite in a temporary folder, the built-in simulator) with one account
// that has spent a little — chats, images, a video, a song — then Debian's Chromium logged in
// from a `gateway cabinet link`, one picture per page; and the operator console's pages from
// an admin link. Needs `npm run build` first.
//   node scripts/screenshots.mjs [--chromium /usr/bin/chromium]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { parse, stringify } from 'yaml';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const argv = process.argv.slice(2);
const chromiumPath = argv.includes('--chromium') ? argv[argv.indexOf('--chromium') + 1] : '/usr/bin/chromium';
const outdir = path.join(root, 'docs', 'screenshots');
const bin = path.join(root, 'bin', 'gateway');

const work = mkdtempSync(path.join(tmpdir(), 'gw-screenshots-'));
const config = parse(readFileSync(path.join(root, 'config', 'gateway.example.yaml'), 'utf8'));
config.jobs = { tick: '50ms', lease: '5s', deadline: '2m', concurrency: 4 };
writeFileSync(path.join(work, 'gateway.yaml'), stringify(config));
const env = { ...process.env, GATEWAY_CONFIG: path.join(work, 'gateway.yaml'), GATEWAY_DATA_DIR: work, GATEWAY_LOG_LEVEL: 'warn' };
const cli = (...args) => JSON.parse(execFileSync(bin, [...args, '--json'], { env, encoding: 'utf8' }));

cli('migrate');
const acme = cli('accounts', 'create', 'acme');
cli('accounts', 'create', 'globex');
cli('balance', 'topup', '--account', 'acme', '--amount', '1500');
const { key } = cli('keys', 'create', '--account', 'acme', '--name', 'backend', '--scopes', 'chat,images,video,music', '--rpm', '120');

const serve = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0', '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  let output = '';
  serve.stdout.on('data', (chunk) => {
    output += chunk;
    const line = output.split('\n').find((candidate) => candidate.startsWith('{"url"'));
    if (line) resolve(JSON.parse(line).url);
  });
  serve.once('exit', (code) => reject(new Error(`serve exited (${code})`)));
});

try {
  const call = async (pathname, body) => {
    const response = await fetch(`${url}${pathname}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  for (const content of ['Summarise our release notes', 'Draft a reply to the customer', 'Translate this paragraph into Russian']) {
    await call('/v1/chat/completions', { model: 'sim/chat', messages: [{ role: 'user', content }] });
  }
  await call('/v1/chat/completions', { model: 'sim/reasoning', messages: [{ role: 'user', content: 'Plan the migration' }] });
  for (const prompt of ['a lighthouse at dusk, oil painting', 'a red fox in fresh snow', 'isometric city block at night']) {
    await call('/v1/images/generations', { model: 'sim/image', prompt, size: '1024x1024' });
  }
  await call('/v1/videos', { model: 'sim/video', prompt: 'waves rolling onto a beach [[sim:job-seconds=0.5]]', seconds: '4', size: '1280x720', wait: true });
  await call('/v1/audio/music', { model: 'sim/song', prompt: 'an upbeat song about the sea [[sim:job-seconds=0.5]]', wait: true });
  // One the upstream fails, for the console's request log and upstreams pages.
  await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sim/chat', messages: [{ role: 'user', content: 'Check the invoice [[sim:status=500]]' }] }) });

  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  // networkidle alone can come before a page navigated in-app has even asked for its data (the
  // gallery was once taken saying «Loading…»): also wait for every Loading notice to go and every
  // image to finish.
  const shoot = async (page, name) => {
    await page.waitForLoadState('networkidle');
    await page.waitForFunction(() => document.querySelector('p.muted[role="status"]') === null && [...document.images].every((image) => image.complete));
    await page.screenshot({ path: path.join(outdir, `${name}.png`), fullPage: true });
    console.error(`docs/screenshots/${name}.png`);
  };
  const open = async (locale, who) => {
    const context = await browser.newContext({ locale, viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const link = new URL(cli('cabinet', 'link', ...who).url);
    await page.goto(`${url}${link.pathname}${link.hash}`);
    await page.locator('h1').waitFor();
    await page.waitForFunction(() => !location.pathname.endsWith('/login'));
    return page;
  };
  const go = async (page, pagePath) => {
    await page.evaluate((href) => {
      history.pushState(null, '', href);
      dispatchEvent(new PopStateEvent('popstate'));
    }, `/cabinet${pagePath}`);
    await page.locator('h1').waitFor();
  };

  const page = await open('en-US', ['--account', 'acme']);
  await shoot(page, 'overview');
  for (const [pagePath, name] of [['/history', 'history'], ['/gallery', 'gallery'], ['/files', 'files'], ['/models', 'models']]) {
    await go(page, pagePath);
    await shoot(page, name);
  }
  await go(page, '/gallery');
  await page.getByRole('button', { name: 'Videos' }).click();
  await page.locator('video').waitFor();
  await shoot(page, 'gallery-video');
  await go(page, '/keys');
  await page.getByLabel('Name', { exact: true }).fill('laptop');
  await page.getByRole('checkbox', { name: 'images' }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByTestId('new-key-secret').waitFor();
  await shoot(page, 'keys');
  await go(page, '/playground');
  const chat = page.getByRole('region', { name: 'Chat' });
  await chat.getByLabel('Model').selectOption('sim/reasoning');
  await chat.getByLabel('Reasoning effort').selectOption('low');
  await chat.getByLabel('Message').fill('Which database should a single-box install use?');
  await chat.getByRole('button', { name: 'Send' }).click();
  await chat.getByRole('button', { name: 'Clear' }).waitFor();
  await chat.locator('details.reasoning').evaluate((details) => (details.open = true));
  const images = page.getByRole('region', { name: 'Image generation' });
  await images.getByLabel('Prompt').fill('a paper boat on a pond');
  await images.getByRole('button', { name: 'Get the price' }).click();
  await images.getByRole('status').waitFor();
  await shoot(page, 'playground');

  const russian = await open('ru-RU', ['--account', 'acme']);
  await shoot(russian, 'overview-ru');

  // The operator console: the system, the accounts and one account's page, the operations pages.
  const operator = await open('en-US', ['--admin']);
  await shoot(operator, 'console');
  await go(operator, '/console/accounts');
  await operator.locator('table.accounts').waitFor();
  await shoot(operator, 'console-accounts');
  await go(operator, `/console/accounts/${acme.id}`);
  await operator.locator('table.keys').waitFor();
  await shoot(operator, 'console-account');
  for (const [pagePath, name] of [['/console/requests', 'console-requests'], ['/console/jobs', 'console-jobs'], ['/console/upstreams', 'console-upstreams'], ['/console/audit', 'console-audit']]) {
    await go(operator, pagePath);
    await shoot(operator, name);
  }

  await browser.close();
} finally {
  serve.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
