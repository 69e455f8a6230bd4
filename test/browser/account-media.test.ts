// The cabinet's stored media in Debian's Chromium against a real `gateway serve`, on SQLite and
// PostgreSQL: in the gallery an image is kept (the API then says its file is permanent, with no
// expiry) and another deleted (its picture leaves the gallery and its content answers 404); a
// song's two tracks play in two audio players; on the files page the quota bar shows exactly the
// quota endpoint's figures, a file is downloaded (the same bytes as its content), kept (the bar
// grows by its size) and deleted (gone from the list, 404, the bar back); on the keys page the
// webhook secret is shown and rotated (the old one gone from the page, the account's secret in
// the API and the database the new one); a playground chat's charge is in the history the moment
// the page opens. No console error; axe finds no serious or critical violation on any page.
// (Code passed to page.evaluate runs in the page; the tests' TypeScript has no DOM types, so
// its elements are `any` here.)
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import type { APIRequestContext, Page } from 'playwright-core';
import { formatRub } from '../../src/util/money.js';
import { formatBytes } from '../../web/src/format.js';
import { eventually } from '../helpers/eventually.js';
import { openPage, seriousViolations, startCabinetGateway, testInBrowser } from './browser.js';

interface GenerationAnswer {
  id: number;
  prompt: string | null;
  file_ids: number[];
  files: ({ id: number; permanent: boolean; expires_at: number | null; bytes: number } | null)[];
}

interface FileAnswer {
  id: number;
  bytes: number;
  sha256: string;
  permanent: boolean;
  expires_at: number | null;
}

async function visit(page: Page, link: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: link, exact: true }).waitFor();
}

/** A cabinet API read with the browser's own session cookie. */
async function cabinetGet<T>(request: APIRequestContext, url: string): Promise<T> {
  const response = await request.get(url);
  if (!response.ok()) throw new Error(`GET ${url}: ${response.status()} ${await response.text()}`);
  return (await response.json()) as T;
}

async function imageGeneration(request: APIRequestContext, url: string, prompt: string): Promise<GenerationAnswer> {
  const list = await cabinetGet<{ data: GenerationAnswer[] }>(request, `${url}/cabinet/api/generations?type=image`);
  const found = list.data.find((generation) => generation.prompt === prompt);
  if (!found) throw new Error(`no image generation with the prompt ${prompt}`);
  return found;
}

testInBrowser('gallery keep and delete, music in two players, the files page (quota bar, download, keep, delete), the webhook secret shown and rotated, a playground charge at once in the history; no console error, no serious axe violation', async (t, database, browser) => {
  const gateway = await startCabinetGateway(t, database);
  const name = `media-${database.backend}`;
  const account = await gateway.cli<{ id: string }>(['accounts', 'create', name]);
  await gateway.cli(['balance', 'topup', '--account', name, '--amount', '100']);
  const created = await gateway.cli<{ key: string }>(['keys', 'create', '--account', name, '--name', 'media']);
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: created.key, maxRetries: 0 });
  for (const prompt of ['keep me: a lighthouse', 'delete me: a storm', 'a file to keep and delete']) {
    await openai.images.generate({ model: 'sim/image', prompt, size: '1024x1024' });
  }
  const song = await fetch(`${gateway.url}/v1/audio/music`, {
    method: 'POST',
    headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/song', mode: 'custom', prompt: '[Verse] night roads, neon lights [[sim:job-seconds=0.2]]', style: 'synth pop', title: 'Night Drive', wait: true }),
  });
  t.is(song.status, 200, await song.clone().text());
  t.is(((await song.json()) as { status: string }).status, 'completed');

  const { page, context, errors } = await openPage(browser);
  const request = context.request;
  const checked: string[] = [];
  const checkAccessibility = async (label: string) => {
    t.deepEqual(await seriousViolations(page), [], `axe on ${label}`);
    checked.push(label);
  };
  await page.goto(await gateway.link({ account: name }));
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

  // Gallery, keep: the card says Kept, and the API says the file is permanent, without expiry.
  await visit(page, 'Gallery');
  const keepCard = page.locator('li.card', { hasText: 'keep me: a lighthouse' });
  await keepCard.getByRole('button', { name: 'Keep', exact: true }).click();
  await keepCard.getByText('Kept', { exact: true }).waitFor();
  t.is(await keepCard.getByRole('button', { name: 'Keep', exact: true }).count(), 0);
  const kept = await imageGeneration(request, gateway.url, 'keep me: a lighthouse');
  t.is(kept.files.length, 1);
  t.is(kept.files[0]?.permanent, true);
  t.is(kept.files[0]?.expires_at, null);
  await checkAccessibility('gallery (kept)');

  // Gallery, delete: the picture leaves the gallery, its content is a 404; the entry stays (its charge too).
  const doomed = await imageGeneration(request, gateway.url, 'delete me: a storm');
  const doomedContent = `${gateway.url}/cabinet/api/generations/image/${doomed.id}/content`;
  t.is((await request.get(doomedContent)).status(), 200);
  const deleteCard = page.locator('li.card', { hasText: 'delete me: a storm' });
  t.is(await deleteCard.getByRole('button', { name: 'Open full size: delete me: a storm' }).count(), 1);
  page.once('dialog', (dialog) => {
    t.is(dialog.message(), 'Delete this generation’s files? Its charge stays in the history.');
    void dialog.accept();
  });
  await deleteCard.getByRole('button', { name: 'Delete', exact: true }).click();
  await deleteCard.getByText('Its files have expired or were deleted.').waitFor();
  t.is(await deleteCard.locator('img').count(), 0, 'no picture left');
  t.is(await deleteCard.getByRole('button').count(), 0, 'nothing left to keep, delete or open');
  t.is((await request.get(doomedContent)).status(), 404);
  t.deepEqual((await imageGeneration(request, gateway.url, 'delete me: a storm')).files, [null]);
  await checkAccessibility('gallery (deleted)');

  // Music: the song's two tracks, each in its own player, each loading its own MP3.
  await page.getByRole('button', { name: 'Music' }).click();
  const players = page.locator('audio');
  await eventually(async () => (await players.count()) === 2, { what: 'two audio players' });
  const sources = await players.evaluateAll((elements: any[]) => elements.map((element) => new URL(element.src).pathname + new URL(element.src).search));
  t.regex(sources[0]!, /^\/cabinet\/api\/generations\/music\/\d+\/content$/);
  t.is(sources[1], `${sources[0]}?index=1`);
  for (const index of [0, 1]) {
    const player = players.nth(index);
    await eventually(() => player.evaluate((element: any) => (element.error ? `error ${element.error.code}` : element.readyState >= 1 && element.duration > 0)), {
      what: `track ${index + 1} has its metadata (readyState ≥ 1, a duration)`,
    });
    t.is(await player.evaluate((element: any) => element.error), null);
  }
  t.deepEqual(await page.locator('.tracks figcaption').allInnerTexts(), ['Track 1', 'Track 2']);
  await checkAccessibility('gallery (music)');

  // Files: the bar is the quota endpoint's figures exactly; only the kept image counts so far.
  await visit(page, 'Files');
  const quotaUrl = `${gateway.url}/cabinet/api/files/quota`;
  const meter = page.getByRole('meter');
  const quotaBar = async () => ({
    value: Number(await meter.getAttribute('value')),
    max: Number(await meter.getAttribute('max')),
    label: await page.locator('label[for="quota-meter"]').innerText(),
  });
  const expectedBar = (quota: { used_bytes: number; quota_bytes: number }) => ({
    value: quota.used_bytes,
    max: quota.quota_bytes,
    label: `${formatBytes(quota.used_bytes, 'en')} of ${formatBytes(quota.quota_bytes, 'en')} used by kept files`,
  });
  const before = await cabinetGet<{ used_bytes: number; quota_bytes: number }>(request, quotaUrl);
  t.deepEqual(before, { used_bytes: kept.files[0]!.bytes, quota_bytes: 1024 ** 3 }, 'the kept image against the default 1GB');
  await meter.waitFor();
  t.deepEqual(await quotaBar(), expectedBar(before));
  t.is(expectedBar(before).label.endsWith(' of 1\u00a0GB used by kept files'), true);

  const file = await cabinetGet<FileAnswer>(request, `${gateway.url}/cabinet/api/files/${(await imageGeneration(request, gateway.url, 'a file to keep and delete')).file_ids[0]}`);
  const fileName = `file-${file.id}`;
  const row = page.locator('tbody tr').filter({ has: page.getByRole('link', { name: `Download ${fileName}`, exact: true }) });
  await row.waitFor();
  await checkAccessibility('files');

  // Download: the file the browser saves is the file's bytes.
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: `Download ${fileName}` }).click()]);
  t.is(download.suggestedFilename(), `${fileName}.png`, 'the page names it, Chromium adds the extension of its type');
  const saved = readFileSync((await download.path())!);
  t.is(saved.length, file.bytes);
  t.is(createHash('sha256').update(saved).digest('hex'), file.sha256);

  // Keep: permanent in the API, the bar grows by exactly its size.
  await row.getByRole('button', { name: `Keep ${fileName}` }).click();
  await eventually(async () => (await row.getByRole('button', { name: `Keep ${fileName}` }).count()) === 0, { what: 'the keep button is gone' });
  const keptFile = await cabinetGet<FileAnswer>(request, `${gateway.url}/cabinet/api/files/${file.id}`);
  t.is(keptFile.permanent, true);
  t.is(keptFile.expires_at, null);
  const afterKeep = await cabinetGet<{ used_bytes: number; quota_bytes: number }>(request, quotaUrl);
  t.is(afterKeep.used_bytes, before.used_bytes + file.bytes);
  await eventually(async () => (await quotaBar()).value === afterKeep.used_bytes, { what: 'the bar shows the kept file' });
  t.deepEqual(await quotaBar(), expectedBar(afterKeep));
  t.is(await row.locator('td').nth(4).innerText(), 'Kept');

  // Delete: gone from the list, a 404, the bar back where it was.
  page.once('dialog', (dialog) => {
    t.is(dialog.message(), `Delete ${fileName}?`);
    void dialog.accept();
  });
  await row.getByRole('button', { name: `Delete ${fileName}` }).click();
  await eventually(async () => (await row.count()) === 0, { what: 'the deleted file leaves the list' });
  t.is((await request.get(`${gateway.url}/cabinet/api/files/${file.id}`)).status(), 404);
  t.is((await request.get(`${gateway.url}/cabinet/api/files/${file.id}/content`)).status(), 404);
  t.deepEqual(await cabinetGet(request, quotaUrl), before);
  await eventually(async () => (await quotaBar()).value === before.used_bytes, { what: 'the bar is back' });
  t.deepEqual(await quotaBar(), expectedBar(before));
  await checkAccessibility('files (after keep and delete)');

  // Webhook secret: shown as the API has it; rotated, the old one leaves the page and the new one is the account's.
  await visit(page, 'API keys');
  const webhookUrl = `${gateway.url}/cabinet/api/webhook-secret`;
  const original = (await cabinetGet<{ webhook_secret: string }>(request, webhookUrl)).webhook_secret;
  t.regex(original, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.is(await page.getByTestId('webhook-secret').count(), 0, 'hidden until asked for');
  await page.getByRole('button', { name: 'Show secret' }).click();
  t.is(await page.getByTestId('webhook-secret').innerText(), original);
  await checkAccessibility('keys (webhook secret shown)');
  page.once('dialog', (dialog) => {
    t.is(dialog.message(), 'Make a new secret? Webhooks signed with the old one will no longer verify.');
    void dialog.accept();
  });
  await page.getByRole('button', { name: 'Rotate secret' }).click();
  const rotated = await eventually(async () => {
    const shown = await page.getByTestId('webhook-secret').innerText();
    return shown !== original ? shown : undefined;
  }, { what: 'the new secret is shown' });
  t.regex(rotated, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.false((await page.content()).includes(original), 'the old secret is nowhere on the page');
  t.is((await cabinetGet<{ webhook_secret: string }>(request, webhookUrl)).webhook_secret, rotated);
  t.is((await database.db('accounts').where({ id: account.id }).first()).webhook_secret, rotated);
  const audit = await gateway.cli<{ data: { action: string; actor: string }[] }>(['audit', 'ls', '--action', 'webhook_secret.rotate']);
  t.is(audit.data.length, 1);
  t.regex(audit.data[0]!.actor, /^cabinet:ses_/);

  // Playground: the chat's charge is the history's newest row the moment the page loads.
  await visit(page, 'Playground');
  const chat = page.getByRole('region', { name: 'Chat' });
  await chat.getByLabel('Model').selectOption('sim/chat');
  await chat.getByLabel('Message').fill('hello from the playground');
  await chat.getByRole('button', { name: 'Send' }).click();
  await chat.getByRole('button', { name: 'Clear' }).waitFor(); // shown once the stream has ended
  const charge = await database.db('ledger_transactions').where({ account_id: account.id, model: 'sim/chat' }).orderBy('id', 'desc').first();
  t.truthy(charge, 'the chat is charged by the time its stream ends');
  await visit(page, 'History');
  const newest = page.locator('table.history tbody tr').first();
  await newest.waitFor(); // the page's one load, no reload and no waiting for the row
  t.is(await newest.getAttribute('data-kind'), 'charge');
  const cells = await newest.locator('td').allInnerTexts();
  t.is(cells[2], `${formatRub(BigInt(charge.amount_units))}\u00a0₽`);
  t.is(cells[4], 'sim/chat');
  t.is(cells[5], 'cabinet', 'charged to the cabinet key');
  await checkAccessibility('history (after the playground)');

  t.deepEqual(checked, ['gallery (kept)', 'gallery (deleted)', 'gallery (music)', 'files', 'files (after keep and delete)', 'keys (webhook secret shown)', 'history (after the playground)']);
  t.deepEqual(errors, [], 'no console error or uncaught exception on any page');
});
