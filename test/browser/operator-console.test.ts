// The operator in Debian's Chromium against a real `gateway serve`, on SQLite and PostgreSQL,
// from an admin link printed by `gateway cabinet link --admin`: the console's system page, then
// the accounts pages, each change through the page's own forms and buttons (the admin API with
// the browser's session: cookie and CSRF token) — an account created, topped up with a reason
// (the balance shown exactly, the ledger row exact), an adjustment larger than the balance
// refused with the API's message under the amount field and nothing written, the account
// disabled and enabled again, a key made (its secret shown once) that works from the official
// OpenAI SDK until it is revoked in the page (the next call 401). The audit log names the
// browser's session as the actor of every change; a change without the CSRF token is refused
// and changes nothing; the account sees the top-up in its own history. No console error, no
// serious axe violation on any page.
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { assertLedgerInvariants } from '../helpers/backends.js';
import { openPage, seriousViolations, startCabinetGateway, testInBrowser } from './browser.js';

/** Clicks the button of a confirm() dialog and checks what the dialog asked. */
async function confirmed(page: Page, message: string, accept: boolean, click: () => Promise<void>): Promise<void> {
  const asked = new Promise<string>((resolve) =>
    page.once('dialog', (dialog) => {
      resolve(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    }),
  );
  await click();
  if ((await asked) !== message) throw new Error(`the dialog asked ${JSON.stringify(await asked)}, not ${JSON.stringify(message)}`);
}

testInBrowser('the operator manages an account from the console: creates it, tops it up, is refused an overdrawing adjustment, disables and enables it, makes a key the OpenAI SDK uses and revokes it; every change audited with the session; no CSRF token, no change', async (t, database, browser) => {
  const gateway = await startCabinetGateway(t, database);
  const name = `client-${database.backend}`;
  const operator = await openPage(browser);
  const { page } = operator;
  const checked: string[] = [];
  const checkAccessibility = async (label: string) => {
    t.deepEqual(await seriousViolations(page), [], `axe on ${label}`);
    checked.push(label);
  };

  await page.goto(await gateway.link({ admin: true }));
  await page.getByRole('heading', { level: 1, name: 'Operator console' }).waitFor();
  t.is(new URL(page.url()).pathname, '/cabinet/console');
  await page.getByRole('heading', { level: 2, name: 'System' }).waitFor();
  await checkAccessibility('console');

  // The accounts: a new one through the form.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Accounts', exact: true }).waitFor();
  t.is(new URL(page.url()).pathname, '/cabinet/console/accounts');
  const creating = page.getByRole('region', { name: 'New account' });
  await creating.getByLabel('Name').fill(name);
  await creating.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('status').getByText(`Account ${name} created.`).waitFor();
  const account = await database.db('accounts').where({ name }).first();
  t.regex(account.id, /^acc_/);
  const listed = page.locator(`tr[data-account-id="${account.id}"]`);
  await listed.waitFor();
  t.deepEqual((await listed.locator('td').allInnerTexts()).slice(0, 6), [name, account.id, '0.0000\u00a0₽', '0.0000\u00a0₽', '0.0000\u00a0₽', 'Enabled']);
  // The same name again: the API's refusal, under the field it names.
  await creating.getByLabel('Name').fill(name);
  await creating.getByRole('button', { name: 'Create account' }).click();
  t.is(await creating.getByRole('alert').innerText(), `Error: Name: an account named "${name}" already exists`);
  t.is(await creating.getByLabel('Name').getAttribute('aria-invalid'), 'true');
  t.is(await database.db('accounts').where({ name }).count({ n: '*' }).first().then((row: any) => Number(row.n)), 1);
  await checkAccessibility('accounts');

  // Its page, from the list.
  await listed.getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name: `Account ${name}` }).waitFor();
  t.is(new URL(page.url()).pathname, `/cabinet/console/accounts/${account.id}`);
  t.is(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts', exact: true }).getAttribute('aria-current'), 'true', 'the list it came from is marked');
  const balance = page.getByTestId('account-money').locator('.figure dd');
  t.deepEqual(await balance.allInnerTexts(), ['0.0000\u00a0₽', '0.0000\u00a0₽', '0.0000\u00a0₽']);
  await checkAccessibility('account');

  // A top-up with a reason: the balance exactly as the ledger has it. Typed with a decimal comma,
  // as the Russian pages write amounts: the form reads it as the point the API takes.
  const topup = page.getByRole('region', { name: 'Top-up' });
  await topup.getByLabel('Amount, ₽').fill('250,5');
  await topup.getByLabel('Reason').fill('invoice 42');
  await topup.getByRole('button', { name: 'Top up' }).click();
  t.is(await topup.getByRole('status').innerText(), 'Recorded 250.5000\u00a0₽; the balance is now 250.5000\u00a0₽.');
  await page.getByTestId('account-money').getByText('250.5000\u00a0₽').first().waitFor();
  t.deepEqual(await balance.allInnerTexts(), ['250.5000\u00a0₽', '0.0000\u00a0₽', '250.5000\u00a0₽']);

  // An adjustment taking more than the balance: the API's 409 under the amount, nothing written.
  const adjust = page.getByRole('region', { name: 'Adjustment' });
  await adjust.getByLabel('Amount, ₽').fill('-300');
  await adjust.getByLabel('Reason').fill('wrong invoice');
  await adjust.getByRole('button', { name: 'Record the adjustment' }).click();
  t.is(
    await adjust.getByRole('alert').innerText(),
    `Error: Amount, ₽: refused: an adjustment of -300.0000 RUB would take more than the 250.5000 RUB available to ${account.id} (the balance minus what running requests hold); nothing was written`,
  );
  const adjustAmount = adjust.getByLabel('Amount, ₽');
  t.is(await adjustAmount.getAttribute('aria-invalid'), 'true');
  t.true((await adjustAmount.getAttribute('aria-describedby'))!.split(' ').includes((await adjust.getByRole('alert').getAttribute('id'))!), 'the field points at the message');
  t.deepEqual(await balance.allInnerTexts(), ['250.5000\u00a0₽', '0.0000\u00a0₽', '250.5000\u00a0₽']);
  // A malformed amount: the 422 names the field too.
  await topup.getByLabel('Amount, ₽').fill('12.34567');
  await topup.getByLabel('Reason').fill('typo');
  await topup.getByRole('button', { name: 'Top up' }).click();
  t.is(await topup.getByRole('alert').innerText(), 'Error: Amount, ₽: body.amount_rub: Value error, "12.34567" is not an amount in RUB: use digits with up to 4 decimals, e.g. "100.50"');
  await checkAccessibility('account (refusals shown)');
  const ledger = async () =>
    (await database.db('ledger_transactions').where({ account_id: account.id }).orderBy('id').select('kind', 'amount_units', 'balance_after_units', 'description')).map((row: any) => [
      row.kind,
      BigInt(row.amount_units),
      BigInt(row.balance_after_units),
      row.description,
    ]);
  const balanceUnits = async () => {
    const row = await database.db('accounts').where({ id: account.id }).first();
    return [BigInt(row.balance_units), BigInt(row.held_units)];
  };
  t.deepEqual(await ledger(), [['topup', 2_505_000n, 2_505_000n, 'invoice 42']]);
  t.deepEqual(await balanceUnits(), [2_505_000n, 0n]);

  // Disabled (a dismissed confirmation changes nothing) and enabled again.
  const state = page.getByRole('region', { name: 'State' });
  const disableConfirm = `Disable ${name}? Requests with its keys will be refused from the next one.`;
  await confirmed(page, disableConfirm, false, () => state.getByRole('button', { name: 'Disable account' }).click());
  t.is(await state.getByTestId('account-state').innerText(), 'Enabled: its keys work.');
  await state.getByLabel('Reason (optional)').fill('unpaid invoice');
  // Enter in the reason field asks nothing and changes nothing: only the button (the shared
  // ConfirmButton, styled as destructive) disables, after its question.
  const unasked: string[] = [];
  const record = (dialog: { message(): string; dismiss(): Promise<void> }) => {
    unasked.push(dialog.message());
    void dialog.dismiss();
  };
  page.on('dialog', record);
  await state.getByLabel('Reason (optional)').press('Enter');
  page.off('dialog', record);
  t.deepEqual(unasked, []);
  t.is(await state.getByTestId('account-state').innerText(), 'Enabled: its keys work.');
  t.is(await state.getByRole('button', { name: 'Disable account' }).getAttribute('class'), 'danger');
  await confirmed(page, disableConfirm, true, () => state.getByRole('button', { name: 'Disable account' }).click());
  await state.getByText('Reason: unpaid invoice').waitFor();
  t.regex(await state.getByTestId('account-state').innerText(), /^Disabled since .+: every request with its keys is refused\.$/);
  t.like(await database.db('accounts').where({ id: account.id }).first(), { disabled_reason: 'unpaid invoice' });
  t.truthy((await database.db('accounts').where({ id: account.id }).first()).disabled_at);
  await confirmed(page, `Enable ${name}? Its keys will work again.`, true, () => state.getByRole('button', { name: 'Enable account' }).click());
  await state.getByText('Enabled: its keys work.').waitFor();
  t.is((await database.db('accounts').where({ id: account.id }).first()).disabled_at, null);

  // A key: its secret once, used by the SDK, revoked in the page, refused from the next call.
  const newKey = page.getByRole('region', { name: 'New key' });
  await newKey.getByLabel('Name', { exact: true }).fill('sdk');
  await newKey.getByLabel('Requests per minute (optional)').fill('600');
  await newKey.getByLabel('Tokens per minute (optional)').fill('20000');
  await newKey.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.getByTestId('new-key-secret').innerText();
  t.regex(secret, /^gw-[\w-]{43}$/);
  const keyRow = page.locator('tr', { hasText: 'sdk' });
  await keyRow.waitFor();
  const stored = await database.db('api_keys').where({ account_id: account.id, name: 'sdk' }).first();
  t.is(await keyRow.getAttribute('data-key-id'), stored.id);
  t.is(secret.slice(-4), stored.last4);
  const cells = await keyRow.locator('td').allInnerTexts();
  t.deepEqual(
    [cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[8]],
    ['sdk', `${stored.prefix}…${stored.last4}`, 'chat, search, images, video, music, audio, embeddings', '600', '20000', '—', '—', 'Never'],
  );
  t.is(stored.tpm, 20_000, 'the tpm went through the admin API');
  t.is(cells[9]!.replace(/\s+/g, ' '), 'Active Change sdk Revoke sdk', 'active, and the buttons name the key they act on');
  await checkAccessibility('account (new key)');
  await page.getByRole('button', { name: 'I have saved it' }).click();
  t.is(await page.getByTestId('new-key-secret').count(), 0, 'the secret is gone once acknowledged');

  // Its controls changed in the console's dialog, through PATCH /admin/v1/keys/:id.
  await keyRow.getByRole('button', { name: 'Change sdk' }).click();
  const change = page.getByRole('dialog', { name: 'Change key sdk' });
  await change.getByLabel('Budget, ₽ (optional)').fill('50');
  await change.getByLabel('Budget period').selectOption('week');
  await change.getByRole('checkbox', { name: 'sim/chat', exact: true }).check();
  await checkAccessibility('account (changing a key)');
  await change.getByRole('button', { name: 'Save changes' }).click();
  await keyRow.getByText('Budget 50.0000\u00a0₽ a week').waitFor();
  t.is(await keyRow.locator('td').nth(6).innerText(), 'Budget 50.0000\u00a0₽ a week\nModels: sim/chat');
  t.like(await database.db('api_keys').where({ id: stored.id }).first(), { budget_period: 'week', models: 'sim/chat' });
  t.is(BigInt((await database.db('api_keys').where({ id: stored.id }).first()).budget_units), 500_000n);

  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 });
  const answer = await openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'hello' }] });
  t.is(answer.object, 'chat.completion');
  t.true((answer.choices[0]?.message.content ?? '').length > 0);

  await confirmed(page, 'Revoke sdk? Requests with it will be refused at once.', true, () => keyRow.getByRole('button', { name: /^Revoke/ }).click());
  await keyRow.getByText(/^Revoked /).waitFor();
  const refused = await openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'again' }] }).then(
    () => undefined,
    (error: unknown) => error,
  );
  t.true(refused instanceof OpenAI.AuthenticationError, String(refused));
  t.is((refused as InstanceType<typeof OpenAI.AuthenticationError>).status, 401);

  // The audit log, read through the page's own session: each change, the session its actor.
  const api = operator.context.request;
  const session = await (await api.get(`${gateway.url}/cabinet/api/session`)).json();
  t.is(session.kind, 'admin');
  const audit = (await (await api.get(`${gateway.url}/admin/v1/audit?account=${account.id}`)).json()).data as { actor: string; action: string; details: any }[];
  t.deepEqual(
    audit.map((row) => row.action),
    ['key.revoke', 'key.update', 'key.create', 'account.enable', 'account.disable', 'balance.topup', 'account.create'],
    'the refused adjustment and the dismissed confirmation wrote nothing',
  );
  const actors = new Set(audit.map((row) => row.actor));
  t.is(actors.size, 1);
  const [actor] = actors;
  t.regex(actor!, /^cabinet:ses_/, 'the browser session is the actor');
  const sessions = await gateway.cli<{ data?: { id: string }[] } | { id: string }[]>(['cabinet', 'sessions', 'ls', '--all']);
  const sessionIds = (Array.isArray(sessions) ? sessions : (sessions.data ?? [])).map((row) => row.id);
  t.true(sessionIds.includes(actor!.slice('cabinet:'.length)), 'the actor is the operator’s live session');

  // The browser's cookie without the CSRF token: refused, and nothing changes.
  const before = [await ledger(), await balanceUnits()];
  const forged = await api.post(`${gateway.url}/admin/v1/accounts/${account.id}/topup`, { data: { amount_rub: '1000', reason: 'forged' }, failOnStatusCode: false });
  t.is(forged.status(), 403);
  t.is((await forged.json()).error.code, 'csrf_token_invalid');
  t.deepEqual([await ledger(), await balanceUnits()], before, 'nothing credited');
  await assertLedgerInvariants(t, database.db);

  // The account's side: the credit, exactly, in its history.
  const client = await openPage(browser);
  await client.page.goto(await gateway.link({ account: name }));
  await client.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await client.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'History', exact: true }).click();
  const row = client.page.locator('tr[data-kind="topup"]');
  await row.waitFor();
  t.is(await row.locator('td.number').first().innerText(), '250.5000\u00a0₽');
  t.true((await row.innerText()).includes('invoice 42'));

  t.deepEqual(checked, ['console', 'accounts', 'account', 'account (refusals shown)', 'account (new key)', 'account (changing a key)']);
  // Chromium logs every refused request itself: exactly the three refusals the operator was shown, nothing else.
  const refusal = (pagePath: string, status: string) => `${gateway.url}/cabinet${pagePath}: console.error: Failed to load resource: the server responded with a status of ${status}`;
  t.deepEqual(
    operator.errors,
    [refusal('/console/accounts', '409 (Conflict)'), refusal(`/console/accounts/${account.id}`, '409 (Conflict)'), refusal(`/console/accounts/${account.id}`, '422 (Unprocessable Entity)')],
    'no other console error or uncaught exception',
  );
  t.deepEqual(client.errors, [], 'no console error or uncaught exception');
});
