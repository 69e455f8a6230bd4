// A customer's key with a budget and a model list, made and changed in the cabinet's page (issue
// 31), in Debian's Chromium against a real `gateway serve`, on SQLite and PostgreSQL: logged in
// by a link, the customer makes a key with a daily budget and two models ticked from the
// catalog, calls with the official OpenAI SDK and sees the charge in the history (the ledger's
// amount); a model outside the list is 403, a request past the budget 402; the budget raised in
// the page's change dialog holds from the next call. axe finds no serious violation on the keys
// page and in the dialog, at desktop width and at 390 px; no console error.
import OpenAI from 'openai';
import { formatRub } from '../../src/util/money.js';
import { openPage, seriousViolations, startCabinetGateway, testInBrowser } from './browser.js';

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'served',
    (error: unknown) => (error instanceof OpenAI.APIError ? `${error.status} ${error.code}` : Promise.reject(error)),
  );

testInBrowser('a key made in the page with a budget and two models from the catalog: the SDK is charged, another model is 403, past the budget 402; the budget raised in the page holds at once; no serious axe violation at 1280 and 390 px', async (t, database, browser) => {
  const gateway = await startCabinetGateway(t, database);
  const name = `controls-${database.backend}`;
  const account = await gateway.cli<{ id: string }>(['accounts', 'create', name]);
  await gateway.cli(['balance', 'topup', '--account', name, '--amount', '100']);
  const { page, errors } = await openPage(browser);
  await page.goto(await gateway.link({ account: name }));
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();

  // The form: every scope ticked; the models are the catalog's.
  const form = page.getByRole('region', { name: 'New key' });
  await form.getByRole('checkbox', { name: 'sim/chat', exact: true }).waitFor();
  t.deepEqual(await form.getByRole('checkbox', { checked: true }).evaluateAll((boxes: any[]) => boxes.map((box) => box.value)), ['chat', 'search', 'images', 'video', 'music', 'audio', 'embeddings']);
  t.deepEqual(await seriousViolations(page), [], 'axe on the keys page at 1280 px');
  await form.getByLabel('Name', { exact: true }).fill('shop');
  await form.getByLabel('Budget, ₽ (optional)').fill('0.01');
  await form.getByLabel('Budget period').selectOption('day');
  await form.getByRole('checkbox', { name: 'sim/chat', exact: true }).check();
  await form.getByRole('checkbox', { name: 'sim/reasoning', exact: true }).check();
  await form.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.getByTestId('new-key-secret').innerText();
  await page.getByRole('button', { name: 'I have saved it' }).click();
  const row = page.locator('tr', { hasText: 'shop' });
  await row.waitFor();
  t.is(await row.locator('td').nth(6).innerText(), 'Budget 0.0100\u00a0₽ a day\nModels: sim/chat, sim/reasoning');

  // The SDK: charged within the budget; another model 403; a request the budget cannot cover 402.
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 });
  const chat = (model: string, maxTokens: number) => openai.chat.completions.create({ model, max_tokens: maxTokens, messages: [{ role: 'user', content: 'hello' }] });
  t.is((await chat('sim/chat', 20)).object, 'chat.completion');
  t.is(await refusal(chat('sim/search', 20)), '403 model_not_allowed');
  t.is(await refusal(chat('sim/chat', 2000)), '402 key_budget_exceeded');

  // The charge in the history: exactly the ledger's amount.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'History', exact: true }).click();
  const charge = page.locator('tr[data-kind="charge"]', { hasText: 'sim/chat' }).first();
  await charge.waitFor();
  const ledger = await database.db('ledger_transactions').where({ account_id: account.id, model: 'sim/chat' }).orderBy('id', 'desc').first();
  t.is(await charge.locator('td.number').first().innerText(), `${formatRub(BigInt(ledger.amount_units))}\u00a0₽`);
  t.true(BigInt(ledger.amount_units) < 0n);

  // The budget raised in the page's dialog: the refused request is served at once.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys', exact: true }).click();
  await row.getByRole('button', { name: 'Change shop' }).click();
  const dialog = page.getByRole('dialog', { name: 'Change key shop' });
  t.is(await dialog.getByLabel('Budget, ₽ (optional)').inputValue(), '0.01');
  t.true(await dialog.getByRole('checkbox', { name: 'sim/reasoning', exact: true }).isChecked());
  t.deepEqual(await seriousViolations(page), [], 'axe on the change dialog at 1280 px');
  await dialog.getByLabel('Budget, ₽ (optional)').fill('5');
  await dialog.getByRole('button', { name: 'Save changes' }).click();
  await row.getByText('Budget 5.0000\u00a0₽ a day').waitFor();
  t.is(await dialog.isVisible(), false, 'the dialog closes once saved');
  t.is((await chat('sim/chat', 2000)).object, 'chat.completion');
  t.is(await refusal(chat('sim/search', 20)), '403 model_not_allowed', 'the model list stayed');

  // On a phone: the page and the dialog pass axe too.
  await page.setViewportSize({ width: 390, height: 844 });
  t.deepEqual(await seriousViolations(page), [], 'axe on the keys page at 390 px');
  await row.getByRole('button', { name: 'Change shop' }).click();
  await dialog.getByLabel('Budget, ₽ (optional)').waitFor();
  t.deepEqual(await seriousViolations(page), [], 'axe on the change dialog at 390 px');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  t.deepEqual(errors, []);
});
