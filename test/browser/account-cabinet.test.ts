// The account cabinet in Debian's Chromium against a real `gateway serve` (the built dist/web,
// its built-in simulator), on SQLite and PostgreSQL: an account logs in from a link printed by
// `gateway cabinet link`, creates a key in the page, uses it from the official OpenAI SDK,
// sees the charge in the history (exactly the ledger's amount) and the image in the gallery,
// plays a video, chats and generates an image in the playground (the price quoted first),
// revokes the key (the SDK's next call is 401). No page logs a console error, and axe-core
// finds no serious or critical violation on any main page. A cookie-authenticated change
// without the CSRF token is refused. The language follows the browser, the switch is kept,
// and an amount is written the language's way. (Stored media: account-media.test.ts.)
// (Code passed to page.evaluate runs in the page; the tests' TypeScript has no DOM types, so
// its elements are `any` here.)
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { formatRub } from '../../src/util/money.js';
import { eventually } from '../helpers/eventually.js';
import { openPage, seriousViolations, startCabinetGateway, testInBrowser } from './browser.js';

/** Goes to a page by its navigation link and waits for its heading. */
async function visit(page: Page, link: string, heading = link): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
}

/** The newest ledger row of an account for a model, as the ledger holds it. */
async function ledgerAmount(database: { db: any }, accountId: string, model: string): Promise<string> {
  const row = await database.db('ledger_transactions').where({ account_id: accountId, model }).orderBy('id', 'desc').first();
  return formatRub(BigInt(row.amount_units));
}

testInBrowser('an account logs in from a CLI link, makes a key for the OpenAI SDK, sees its charge and image, plays a video, uses the playground, revokes the key; no console error, no serious axe violation', async (t, database, browser) => {
  const gateway = await startCabinetGateway(t, database);
  const name = `browser-${database.backend}`;
  const account = await gateway.cli<{ id: string }>(['accounts', 'create', name]);
  await gateway.cli(['balance', 'topup', '--account', name, '--amount', '100']);
  const { page, errors } = await openPage(browser);
  const checked: string[] = [];
  const checkAccessibility = async (label: string) => {
    t.deepEqual(await seriousViolations(page), [], `axe on ${label}`);
    checked.push(label);
  };

  // The link: the token goes from the fragment to POST /cabinet/api/login, and leaves the address bar.
  await page.goto(await gateway.link({ account: name }));
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  t.is(new URL(page.url()).pathname, '/cabinet/');
  t.is(new URL(page.url()).hash, '');
  t.true((await page.locator('.figures').first().innerText()).includes('100.0000\u00a0₽'), 'the balance as the ledger holds it');
  await checkAccessibility('overview');

  // A key made in the page, its secret shown once.
  await visit(page, 'API keys');
  await checkAccessibility('keys');
  await page.getByLabel('Name', { exact: true }).fill('sdk');
  // Every scope is ticked for a new key: this one keeps chat, images and video.
  for (const scope of ['chat', 'search', 'images', 'video', 'music', 'audio', 'embeddings']) {
    t.true(await page.getByRole('checkbox', { name: scope, exact: true }).isChecked(), `${scope} ticked by default`);
  }
  for (const scope of ['search', 'music', 'audio', 'embeddings']) await page.getByRole('checkbox', { name: scope, exact: true }).uncheck();
  await page.getByLabel('Requests per minute (optional)').fill('600');
  await page.getByLabel('Tokens per minute (optional)').fill('100000');
  await page.getByLabel('Requests at once (optional)').fill('4');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.getByTestId('new-key-secret').innerText();
  t.regex(secret, /^gw-[\w-]{43}$/);
  const row = page.locator('tr', { hasText: 'sdk' });
  await row.waitFor();
  t.regex(await row.innerText(), /chat, images, video\s+600\s+100000\s+4\s/);
  await page.getByRole('button', { name: 'I have saved it' }).click();
  t.is(await page.getByTestId('new-key-secret').count(), 0, 'the secret is gone once acknowledged');

  // The SDK with that key: an image, a chat and a video.
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 });
  const image = await openai.images.generate({ model: 'sim/image', prompt: 'a red fox in the snow', size: '1024x1024' });
  t.is(image.data?.length, 1);
  await openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'hello' }] });
  const video = await openai.videos.create({ model: 'sim/video', prompt: 'waves on a beach [[sim:job-seconds=0.2]]', seconds: '4', size: '1280x720' });
  await eventually(async () => (await openai.videos.retrieve(video.id)).status === 'completed', { what: 'the video is completed' });

  // The history: the image's charge, exactly what the ledger holds.
  await visit(page, 'History');
  const imageCharge = page.locator('tr[data-kind="charge"]', { hasText: 'sim/image' }).first();
  await imageCharge.waitFor();
  const expected = await ledgerAmount(database, account.id, 'sim/image');
  t.true(expected.startsWith('-'));
  t.is(await imageCharge.locator('td.number').first().innerText(), `${expected}\u00a0₽`);
  await page.getByLabel('Kind').selectOption('topup');
  // What is typed or chosen in a filter reads as normal text, not in its label's bold (styles.css).
  const fontWeight = (element: any) => (globalThis as any).getComputedStyle(element).fontWeight;
  await page.getByLabel('Model').fill('sim/image');
  t.deepEqual(
    [await page.locator('label', { hasText: 'Model' }).evaluate(fontWeight), await page.getByLabel('Model').evaluate(fontWeight), await page.getByLabel('Kind').evaluate(fontWeight)],
    ['600', '400', '400'],
  );
  await page.getByLabel('Model').fill('');
  await page.getByRole('button', { name: 'Apply' }).click();
  await eventually(async () => (await page.locator('tbody tr').count()) === 1 && (await page.locator('tbody tr[data-kind="topup"]').count()) === 1, { what: 'only the top-up is listed' });
  t.regex((await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')) ?? '', /^\/cabinet\/api\/history\?kind=topup&format=csv$/);
  await checkAccessibility('history');

  // The gallery: the image as a thumbnail that opens full size, the video playing.
  await visit(page, 'Gallery');
  const thumbnail = page.getByRole('button', { name: 'Open full size: a red fox in the snow' });
  await thumbnail.waitFor();
  await eventually(() => thumbnail.locator('img').evaluate((img: any) => img.complete && img.naturalWidth === 1024), { what: 'the thumbnail loaded' });
  await checkAccessibility('gallery');
  await thumbnail.click();
  const full = page.getByRole('dialog').locator('img');
  await eventually(() => full.evaluate((img: any) => img.complete && img.naturalWidth === 1024), { what: 'the full-size image loaded' });
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'Videos' }).click();
  const player = page.locator('video').first();
  await player.waitFor();
  await player.evaluate((element: any) => {
    element.muted = true;
    void element.play().catch(() => undefined);
  });
  await eventually(() => player.evaluate((element: any) => (element.error ? `error ${element.error.code}` : element.readyState >= 2)), { what: 'the video has its current frame (readyState ≥ 2)' });
  t.is(await player.evaluate((element: any) => element.error), null);
  await checkAccessibility('gallery (videos)');

  // Files: the quota bar and the stored image.
  await visit(page, 'Files');
  await page.getByRole('meter').waitFor();
  await page.locator('tbody tr').first().waitFor();
  await checkAccessibility('files');

  // Playground: a streamed chat with its reasoning folded, an image priced before it is made.
  await visit(page, 'Playground');
  await checkAccessibility('playground');
  const chat = page.getByRole('region', { name: 'Chat' });
  await chat.getByLabel('Model').selectOption('sim/reasoning');
  await chat.getByLabel('Reasoning effort').selectOption('low');
  await chat.getByLabel('Message').fill('Why is the sky blue?');
  await chat.getByRole('button', { name: 'Send' }).click();
  await chat.getByRole('button', { name: 'Clear' }).waitFor(); // shown once the stream has ended
  const answer = chat.locator('.turn-assistant');
  t.true((await answer.locator('.turn-content').innerText()).trim().length > 0, 'the answer streamed in');
  t.is(await answer.locator('details.reasoning').count(), 1, 'the reasoning, folded');
  t.false(await answer.locator('details.reasoning').evaluate((details: any) => details.open));
  const imagePanel = page.getByRole('region', { name: 'Image generation' });
  await imagePanel.getByLabel('Prompt').fill('a lighthouse at dusk');
  await imagePanel.getByRole('button', { name: 'Get the price' }).click();
  const quote = imagePanel.getByRole('status');
  await quote.waitFor();
  t.is(await quote.innerText(), '1 × 3.78\u00a0₽ = 3.7800\u00a0₽ ($0.042)', 'the unit price as the catalog states it, the total as charged');
  await imagePanel.getByRole('button', { name: 'Generate for 3.7800\u00a0₽' }).click();
  await eventually(() => imagePanel.locator('.generated img').evaluate((img: any) => img.complete && img.naturalWidth > 0), { what: 'the generated image shows' });
  await checkAccessibility('playground (after use)');
  t.is(await ledgerAmount(database, account.id, 'sim/image'), '-3.7800', 'the quote was the charge');

  await visit(page, 'Models & prices');
  await page.locator('table.models').getByText('sim/chat', { exact: true }).waitFor();
  await checkAccessibility('models');

  // Revoked in the page: the SDK's next call is refused.
  await visit(page, 'API keys');
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('tr', { hasText: 'sdk' }).getByRole('button', { name: /^Revoke/ }).click();
  await page.locator('tr', { hasText: 'sdk' }).getByText(/^Revoked /).waitFor();
  const refused = await openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'again' }] }).then(
    () => undefined,
    (error: unknown) => error,
  );
  t.true(refused instanceof OpenAI.AuthenticationError, String(refused));
  t.is((refused as InstanceType<typeof OpenAI.AuthenticationError>).status, 401);

  t.deepEqual(checked, ['overview', 'keys', 'history', 'gallery', 'gallery (videos)', 'files', 'playground', 'playground (after use)', 'models']);
  t.deepEqual(errors, [], 'no console error or uncaught exception on any page');
});

testInBrowser('a cookie-authenticated change without the CSRF token is refused (403 csrf_token_invalid), with it accepted; the language follows the browser, the switch is kept, and amounts are written the language\'s way', async (t, database, browser) => {
  const gateway = await startCabinetGateway(t, database);
  const name = `csrf-${database.backend}`;
  await gateway.cli(['accounts', 'create', name]);
  await gateway.cli(['balance', 'topup', '--account', name, '--amount', '1234.56']);
  const { page, context, errors } = await openPage(browser, { locale: 'ru-RU' });
  await page.goto(await gateway.link({ account: name }));
  await page.getByRole('heading', { level: 1, name: 'Обзор' }).waitFor();
  t.is(await page.evaluate(() => (globalThis as any).document.documentElement.lang), 'ru');
  const balance = page.locator('.figures .figure').first().locator('dd');
  t.is(await balance.innerText(), '1\u00a0234,5600\u00a0₽', 'Russian: no-break space between thousands, decimal comma, no-break space before ₽');

  // The browser's cookie, without and with the token the session gave the page.
  const without = await context.request.post(`${gateway.url}/cabinet/api/keys`, { data: { name: 'forged', scopes: ['chat'] }, failOnStatusCode: false });
  t.is(without.status(), 403);
  t.is((await without.json()).error.code, 'csrf_token_invalid');
  const session = await (await context.request.get(`${gateway.url}/cabinet/api/session`)).json();
  const withToken = await context.request.post(`${gateway.url}/cabinet/api/keys`, { data: { name: 'genuine', scopes: ['chat'] }, headers: { 'x-csrf-token': session.csrf_token } });
  t.is(withToken.status(), 201);
  const keys = (await (await context.request.get(`${gateway.url}/cabinet/api/keys`)).json()).data as { name: string }[];
  t.false(keys.some((key) => key.name === 'forged'));
  t.true(keys.some((key) => key.name === 'genuine'));

  // The switch to English, kept across a reload.
  await page.getByLabel('Язык').selectOption('en');
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  t.is(await page.evaluate(() => (globalThis as any).document.documentElement.lang), 'en');
  t.is(await balance.innerText(), '1,234.5600\u00a0₽', 'English: comma between thousands, decimal point');

  // Signing out ends the session: the next load points to the login page, and names no command a customer cannot run.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { level: 1, name: 'Not signed in' }).waitFor();
  t.is(await page.getByRole('link', { name: 'Go to sign in' }).getAttribute('href'), '/cabinet/login');
  t.false((await page.locator('main').innerText()).includes('gateway cabinet'), 'no command');
  t.deepEqual(errors, []);
});

/** The texts of the chart's axis labels (SVG text elements of a class) on the overview. */
function chartLabels(page: Page, axis: 'x' | 'y'): Promise<string[]> {
  return page.locator(`figure.chart svg text.chart-${axis}-label`).allTextContents();
}

/** A UTC day as the page's language writes it short (web/src/format.ts formatDay: Intl with the page's lang). */
const dayIn = (locale: string, day: Date) => new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(day);

testInBrowser('on a phone (390 px) and at desktop width: the history table scrolls in a focusable named region (no serious axe violation), the spending chart has a RUB axis and dates in the page\'s language', async (t, database, browser) => {
  const gateway = await startCabinetGateway(t, database);
  const name = `phone-${database.backend}`;
  await gateway.cli(['accounts', 'create', name]);
  await gateway.cli(['balance', 'topup', '--account', name, '--amount', '100']);
  const key = await gateway.cli<{ key: string }>(['keys', 'create', '--account', name, '--scopes', 'chat']);
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key.key, maxRetries: 0 });
  for (const content of ['one', 'two', 'three']) await openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content }] });
  // The overview's 30 UTC days end today (the server's today; the test runs within one day but for a midnight between).
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const labelledDays = [29, 24, 19, 14, 9, 4].map((daysAgo) => new Date(today - daysAgo * 86_400_000)); // every 5th of the 30, from the oldest

  for (const { width, locale, lang, history, rows } of [
    { width: 390, locale: 'ru-RU', lang: 'ru', history: 'История', rows: 'Операции по счёту' },
    { width: 1280, locale: 'en-US', lang: 'en', history: 'History', rows: 'Ledger rows' },
  ]) {
    const { page, context, errors } = await openPage(browser, { locale });
    await page.setViewportSize({ width, height: 844 });
    await page.goto(await gateway.link({ account: name }));
    await page.locator('figure.chart svg').first().waitFor();
    t.is(await page.evaluate(() => (globalThis as any).document.documentElement.lang), lang);

    // The value axis: RUB ticks from 0; the dates: the page's language.
    const yLabels = await chartLabels(page, 'y');
    t.true(yLabels.length >= 2, `${width}px: ticks ${JSON.stringify(yLabels)}`);
    t.is(yLabels[0], '0\u00a0₽');
    t.true(yLabels.every((label) => /^\d[\d\u00a0,.]*\u00a0₽$/.test(label)), `${width}px: ${JSON.stringify(yLabels)}`);
    t.deepEqual(await chartLabels(page, 'x'), labelledDays.map((day) => dayIn(lang === 'ru' ? 'ru-RU' : 'en-GB', day)), `${width}px: the dates in ${lang}`);
    t.regex((await chartLabels(page, 'x'))[0]!, lang === 'ru' ? /^\d{1,2} [а-я]+\.?$/ : /^\d{1,2} [A-Z][a-z]{2}$/);
    t.deepEqual(await seriousViolations(page), [], `axe on the overview at ${width}px`);

    // The history with its rows (a top-up and three charges): wider than a phone, it scrolls in a region the keyboard reaches.
    await page.getByRole('navigation', { name: lang === 'ru' ? 'Основное меню' : 'Main' }).getByRole('link', { name: history, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: history, exact: true }).waitFor();
    await eventually(async () => (await page.locator('table.history tbody tr').count()) === 4, { what: 'the four ledger rows' });
    t.deepEqual(await seriousViolations(page), [], `axe on the history at ${width}px`);
    const region = page.getByRole('region', { name: rows });
    t.is(await region.getAttribute('tabindex'), '0');
    if (width === 390) t.true(await region.evaluate((element: any) => element.scrollWidth > element.clientWidth), 'at 390 px the table is wider than its region: it scrolls');
    await region.focus();
    t.true(await region.evaluate((element: any) => element === (globalThis as any).document.activeElement), 'the region takes the focus');
    t.deepEqual(errors, [], `no console error at ${width}px`);
    await context.close();
  }
});
