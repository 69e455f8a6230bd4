// The operator console's operations pages in Debian's Chromium against a real `gateway serve`,
// on SQLite and PostgreSQL. An account and two keys made by the CLI send requests through the
// official OpenAI SDK — chats that succeed, one the simulator fails upstream ([[sim:status=500]])
// and two long videos. The operator, logged in from `gateway cabinet link --admin`, then reads:
// the system page (the database kind); the request log with every request, filtered by outcome
// (only the failure, with its upstream status and error; the filter survives a reload, being in
// the address), by model and by key, and by source once the account has opened its cabinet
// (the pages' own calls apart from the API's traffic); the jobs, cancelling one from the page (its hold released
// in the database, nothing charged) and trying to cancel one the CLI cancelled meanwhile (the
// API's job_already_ended shown); the upstreams page with the failing route's error; the audit
// log with both cancels; the account's ledger (issue 31), exact, where a charge is refunded
// through its confirming button — the refund row on top, the charge marked, the balance shown
// anew, at desktop width and at 390 px. No console error beyond the browser's note of that
// expected 409, and no serious axe violation on any page. (Code passed to evaluate runs in the
// page: `any` there.)
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { auditActions } from '../../src/audit/audit-log.js';
import { formatRub } from '../../src/util/money.js';
import { assertLedgerInvariants } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { openPage, seriousViolations, startCabinetGateway, testInBrowser } from './browser.js';

/** Goes to a page by its navigation link and waits for its heading. */
async function visit(page: Page, link: string, heading: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
}

/** The `data-…` attribute of every row that has it in the page's first table, in order. */
function rowsOf(page: Page, attribute: string): Promise<(string | null)[]> {
  return page.locator('table tbody').first().locator(`tr[${attribute}]`).evaluateAll((rows: any[], name: string) => rows.map((row) => row.getAttribute(name)), attribute);
}

/** Waits until the listed rows are exactly `expected` (the list reloads after a filter). */
async function expectRows(page: Page, attribute: string, expected: string[], what: string): Promise<void> {
  await eventually(async () => JSON.stringify(await rowsOf(page, attribute)) === JSON.stringify(expected), { what });
}

testInBrowser('the operator reads the request log (filters in the address), cancels a job from the page (hold released), sees the upstream error, the audit log and the system, and refunds a charge from the account\'s ledger (confirmed, once, the balance shown anew); no console error, no serious axe violation', async (t, database, browser) => {
  const gateway = await startCabinetGateway(t, database);
  const name = `ops-${database.backend}`;
  const account = await gateway.cli<{ id: string }>(['accounts', 'create', name]);
  await gateway.cli(['balance', 'topup', '--account', name, '--amount', '500']);
  const main = await gateway.cli<{ id: string; key: string }>(['keys', 'create', '--account', name, '--name', 'backend', '--scopes', 'chat,video']);
  const other = await gateway.cli<{ id: string; key: string }>(['keys', 'create', '--account', name, '--name', 'reports', '--scopes', 'chat']);

  // Through the SDK: two chats that succeed, one the upstream fails, one by the other key, two long videos.
  const sdk = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: main.key, maxRetries: 0 });
  const chat = (model: string, content: string, client = sdk) => client.chat.completions.create({ model, messages: [{ role: 'user', content }] }).withResponse();
  const first = await chat('sim/chat', 'hello');
  const reasoning = await chat('sim/reasoning', 'think about it');
  const failure = await chat('sim/chat', 'this one fails [[sim:status=500]]').then(
    () => undefined,
    (error: unknown) => error,
  );
  t.true(failure instanceof OpenAI.APIError);
  const failed = failure as InstanceType<typeof OpenAI.APIError>;
  t.is(failed.status, 502);
  const byOther = await chat('sim/chat', 'a report', new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: other.key, maxRetries: 0 }));
  const video = (prompt: string) => sdk.videos.create({ model: 'sim/video', prompt: `${prompt} [[sim:job-seconds=600]]`, seconds: '4', size: '1280x720' }).withResponse();
  const toCancel = await video('a slow sunrise');
  const cancelledElsewhere = await video('a slower sunset');
  const requestIds = [cancelledElsewhere.request_id, toCancel.request_id, byOther.request_id, failed.requestID, reasoning.request_id, first.request_id] as string[];
  t.true(requestIds.every((id) => typeof id === 'string' && id.length > 0));
  // The log is written in batches; the page shows what is written.
  await eventually(async () => (await database.db('request_log').whereIn('request_id', requestIds).select('id')).length === requestIds.length, { what: 'the six requests are in the request log' });

  const { page, errors } = await openPage(browser);
  const checked: string[] = [];
  const checkAccessibility = async (label: string) => {
    t.deepEqual(await seriousViolations(page), [], `axe on ${label}`);
    checked.push(label);
  };

  // The system page: labelled fields, the database kind among them.
  await page.goto(await gateway.link({ admin: true }));
  await page.getByRole('heading', { level: 1, name: 'Operator console' }).waitFor();
  await page.getByRole('heading', { level: 2, name: 'System' }).waitFor();
  t.is(await page.locator('dd[data-field="database"]').innerText(), `${database.backend === 'postgres' ? 'PostgreSQL' : 'SQLite'} · reachable`);
  t.is(await page.locator('dd[data-field="redis"]').innerText(), 'not configured (limits and caches are per process)');
  t.regex(await page.locator('dd[data-field="version"]').innerText(), /^\d+\.\d+\.\d+/);
  t.is(await page.locator('pre').count(), 0, 'no JSON dump');
  await checkAccessibility('system');

  // The request log: every request, newest first; the failure with its upstream status and error.
  await visit(page, 'Requests', 'Request log');
  await expectRows(page, 'data-request-id', requestIds, 'the six requests, newest first');
  const failedRow = page.locator(`tr[data-request-id="${failed.requestID}"]`);
  // Accounts are named once GET /admin/v1/accounts has answered (until then, by id).
  await eventually(async () => (await failedRow.innerText()).includes(name), { what: 'the account shown by its name' });
  const failedText = await failedRow.innerText();
  t.true(failedText.includes(name) && failedText.includes(main.id) && failedText.includes('sim/chat') && failedText.includes('POST /v1/chat/completions') && failedText.includes('502'), failedText);
  const failureLine = `upstream answered 500 · upstream_error: ${(failed.error as { message: string }).message}`;
  const failureOf = (requestId: string) => page.locator(`tr[data-failure-of="${requestId}"]`).innerText().then((text) => text.trim());
  t.is(await failureOf(failed.requestID!), failureLine, 'the upstream status and the error the client got');
  t.is(await page.locator('tr[data-failure-of]').count(), 1, 'only the failure has a failure line');
  t.true((await page.locator(`tr[data-request-id="${first.request_id}"]`).innerText()).includes(name));
  const firstCharge = await database.db('ledger_transactions').where({ request_id: first.request_id, kind: 'charge' }).first();
  t.is(await page.locator(`tr[data-request-id="${first.request_id}"] td.number`).last().innerText(), `${formatRub(-BigInt(firstCharge.amount_units))}\u00a0₽`, 'the charge as the ledger has it');
  await checkAccessibility('request log');

  await page.getByLabel('Outcome').selectOption('failed');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expectRows(page, 'data-request-id', [failed.requestID!], 'only the failure');
  t.is(new URL(page.url()).search, '?status=failed');
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Request log' }).waitFor();
  await expectRows(page, 'data-request-id', [failed.requestID!], 'only the failure, after a reload');
  t.is(await page.getByLabel('Outcome').inputValue(), 'failed', 'the filter kept by the address');
  t.is(await failureOf(failed.requestID!), failureLine);
  await checkAccessibility('request log (failures)');

  await page.getByRole('button', { name: 'Reset' }).click();
  await expectRows(page, 'data-request-id', requestIds, 'every request again');
  t.is(new URL(page.url()).search, '');
  await page.getByLabel('Model', { exact: true }).fill('sim/reasoning');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expectRows(page, 'data-request-id', [reasoning.request_id!], 'the sim/reasoning request');
  await page.getByLabel('Model', { exact: true }).fill('');
  await page.getByLabel('Key', { exact: true }).fill(other.id);
  await page.getByRole('button', { name: 'Apply' }).click();
  await expectRows(page, 'data-request-id', [byOther.request_id!], 'the other key’s request');
  t.is(new URL(page.url()).searchParams.get('key'), other.id);
  await page.getByLabel('Key', { exact: true }).fill('');
  await page.getByLabel('Status code').fill('502');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expectRows(page, 'data-request-id', [failed.requestID!], 'the 502');

  // The account opens its cabinet: the pages' own calls (/cabinet/api/…) are logged as source
  // cabinet, and the source filter shows them apart from the API's traffic.
  const accountView = await openPage(browser);
  await accountView.page.goto(await gateway.link({ account: name }));
  await accountView.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await eventually(async () => (await database.db('request_log').where({ source: 'cabinet', route: '/cabinet/api/overview' }).select('id')).length === 1, { what: 'the cabinet overview call is in the request log' });
  t.deepEqual(accountView.errors, []);
  await accountView.context.close();
  await page.getByLabel('Status code').fill('');
  await page.getByLabel('Source').selectOption('cabinet');
  await page.getByRole('button', { name: 'Apply' }).click();
  t.is(new URL(page.url()).search, '?source=cabinet');
  // Every call the account's pages made, as the log holds them (a late batch: refreshed until the page shows it).
  const cabinetRows = async () => (await database.db('request_log').where({ source: 'cabinet' }).orderBy('id', 'desc').select('request_id')).map((row: { request_id: string }) => row.request_id);
  await eventually(
    async () => {
      if (JSON.stringify(await rowsOf(page, 'data-request-id')) === JSON.stringify(await cabinetRows())) return true;
      await page.getByRole('button', { name: 'Refresh' }).click();
      return false;
    },
    { what: 'only the cabinet pages\' calls', intervalMs: 200 },
  );
  const cabinetIds = await cabinetRows();
  t.true(cabinetIds.length >= 1);
  t.deepEqual(await rowsOf(page, 'data-source'), cabinetIds.map(() => 'cabinet'));
  const overviewRow = await page.locator('tr[data-source="cabinet"]', { hasText: 'GET /cabinet/api/overview' }).innerText();
  t.true(overviewRow.includes('Cabinet pages') && overviewRow.includes(name), overviewRow);
  await checkAccessibility('request log (cabinet pages)');
  await page.getByLabel('Source').selectOption('api');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expectRows(page, 'data-request-id', requestIds, 'the six API requests, none of the cabinet\'s');
  t.deepEqual(await rowsOf(page, 'data-source'), requestIds.map(() => 'api'));
  t.is(new URL(page.url()).search, '?source=api');

  // Jobs: both videos running; one cancelled from the page, its hold released and nothing charged.
  const job = await database.db('jobs').where({ id: toCancel.data.id }).first();
  const hold = await database.db('holds').where({ id: job.hold_id }).first();
  t.is(hold.status, 'active');
  const before = await database.db('accounts').where({ id: account.id }).first();
  await visit(page, 'Jobs', 'Jobs');
  await expectRows(page, 'data-job-id', [cancelledElsewhere.data.id, toCancel.data.id], 'both videos');
  await checkAccessibility('jobs');
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator(`tr[data-job-id="${toCancel.data.id}"]`).getByRole('button', { name: `Cancel ${toCancel.data.id}` }).click();
  const notice = page.getByRole('status').filter({ hasText: 'cancelled' });
  await notice.waitFor();
  t.is(await notice.innerText(), `Job ${toCancel.data.id} cancelled: ${formatRub(BigInt(job.hold_units))}\u00a0₽ released.`);
  await eventually(async () => (await page.locator(`tr[data-job-id="${toCancel.data.id}"]`).innerText()).includes('the job was cancelled by the operator'), { what: 'the list shows the cancelled job' });
  t.is(await page.locator(`tr[data-job-id="${toCancel.data.id}"] button`).count(), 0, 'no cancel button on an ended job');
  const released = await database.db('holds').where({ id: job.hold_id }).first();
  t.is(released.status, 'released');
  t.is(Number(released.charged_units), 0, 'the hold closed with nothing charged');
  const after = await database.db('accounts').where({ id: account.id }).first();
  t.is(BigInt(after.balance_units), BigInt(before.balance_units), 'nothing charged');
  t.is(BigInt(after.held_units), BigInt(before.held_units) - BigInt(job.hold_units), 'exactly its hold released');
  t.deepEqual(await database.db('ledger_transactions').where({ hold_id: job.hold_id }).select('id'), [], 'no ledger row for the cancelled job');

  // The other one is cancelled by the CLI while the page still offers it: the API's refusal is shown.
  await gateway.cli(['jobs', 'cancel', cancelledElsewhere.data.id]);
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator(`tr[data-job-id="${cancelledElsewhere.data.id}"]`).getByRole('button', { name: `Cancel ${cancelledElsewhere.data.id}` }).click();
  const refusal = page.getByRole('alert');
  await refusal.waitFor();
  t.is(await refusal.innerText(), `Error: job ${cancelledElsewhere.data.id} had already ended (cancelled); nothing changed`);
  await checkAccessibility('jobs (after the cancels)');

  // Upstreams: the failing route with its error.
  await visit(page, 'Upstreams', 'Upstreams');
  const route = page.locator('tr[data-route="sim:chat"]');
  await route.waitFor();
  t.is(await route.locator('td.number').nth(0).innerText(), '3', 'three calls');
  t.is(await route.locator('td.number').nth(1).innerText(), '1', 'one error');
  const recent = page.getByRole('region', { name: 'Recent errors of sim:chat' });
  const recentText = await recent.locator('tbody tr').innerText();
  t.true(recentText.includes('500') && recentText.includes(failed.requestID!) && recentText.includes('chat'), recentText);
  await checkAccessibility('upstreams');

  // Audit: both cancels, the page's with the browser session as its actor.
  await visit(page, 'Audit', 'Audit log');
  t.deepEqual(
    await page.getByLabel('Action').locator('option').evaluateAll((options: any[]) => options.map((option) => option.value)),
    ['', ...auditActions],
    'every action the API takes, no other',
  );
  await page.getByLabel('Action').selectOption('job.cancel');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expectRows(page, 'data-action', ['job.cancel', 'job.cancel'], 'the two cancels');
  await eventually(async () => (await page.locator('tbody tr').allInnerTexts()).every((text) => text.includes(name)), { what: 'the account shown by its name' });
  const [cliCancel, pageCancel] = await page.locator('tbody tr').allInnerTexts();
  t.regex(pageCancel!, new RegExp(`cabinet:ses_\\S+\\s+job\\.cancel\\s+${toCancel.data.id}\\s+${name}`));
  t.regex(pageCancel!, /kind\s+video\s+model\s+sim\/video\s+status_before\s+(queued|in_progress)/);
  t.regex(cliCancel!, new RegExp(`cli:\\S+\\s+job\\.cancel\\s+${cancelledElsewhere.data.id}\\s+${name}`));
  t.is(new URL(page.url()).search, '?action=job.cancel');
  await checkAccessibility('audit');

  // The account's ledger: every row as the ledger has it, newest first (the three chats' charges,
  // the top-up; the failure and the cancelled videos charged nothing).
  await visit(page, 'Accounts', 'Accounts');
  await page.locator(`tr[data-account-id="${account.id}"]`).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name: `Account ${name}` }).waitFor();
  const ledgerRows = async () =>
    (await database.db('ledger_transactions').where({ account_id: account.id }).orderBy('id', 'desc')) as { id: number | string; kind: string; amount_units: string | number; balance_after_units: string | number; request_id: string | null }[];
  const rub = (units: bigint) => `${formatRub(units)}\u00a0₽`;
  const ledgerIds = () => page.locator('table.ledger tbody tr').evaluateAll((rows: any[]) => rows.map((row) => row.getAttribute('data-transaction-id')));
  const stored = await ledgerRows();
  t.deepEqual(stored.map((row) => [row.kind, row.request_id]), [['charge', byOther.request_id], ['charge', reasoning.request_id], ['charge', first.request_id], ['topup', null]]);
  await eventually(async () => JSON.stringify(await ledgerIds()) === JSON.stringify(stored.map((row) => `txn_${row.id}`)), { what: 'the ledger rows, newest first' });
  const chargeRow = page.locator(`tr[data-transaction-id="txn_${firstCharge.id}"]`);
  const chargeCells = await chargeRow.locator('td').allInnerTexts();
  t.deepEqual(chargeCells.slice(1, 5), ['Charge', rub(BigInt(firstCharge.amount_units)), rub(BigInt(firstCharge.balance_after_units)), 'sim/chat']);
  t.true(chargeCells[5]!.includes(first.request_id!), chargeCells[5]);
  t.is(chargeCells[6]!.replace(/\s+/g, ' ').trim(), `Refund txn_${firstCharge.id}`, 'the button names the row it refunds');
  t.deepEqual((await page.locator('tr[data-kind="topup"] td').allInnerTexts()).slice(1, 4), ['Top-up', '500.0000\u00a0₽', '500.0000\u00a0₽']);
  await checkAccessibility('account ledger');

  // The first chat's charge refunded through the confirming button: a dismissed question changes nothing.
  const chargeUnits = -BigInt(firstCharge.amount_units);
  const question = `Refund the charge of ${rub(chargeUnits)} (${first.request_id})? The whole amount goes back to the account; a charge is refunded only once.`;
  const balanceBefore = BigInt((await database.db('accounts').where({ id: account.id }).first()).balance_units);
  const refundButton = chargeRow.getByRole('button', { name: `Refund txn_${firstCharge.id}` });
  const asked: string[] = [];
  page.once('dialog', (dialog) => {
    asked.push(dialog.message());
    void dialog.dismiss();
  });
  await refundButton.click();
  t.deepEqual(asked, [question]);
  t.is((await ledgerRows()).length, stored.length, 'dismissed: nothing refunded');
  page.once('dialog', (dialog) => {
    asked.push(dialog.message());
    void dialog.accept();
  });
  await refundButton.click();
  const done = page.getByTestId('refund-done');
  await done.waitFor();
  t.deepEqual(asked, [question, question]);
  t.is(await done.innerText(), `Refunded ${rub(chargeUnits)}; the balance is now ${rub(balanceBefore + chargeUnits)}.`);
  const [refundRow] = await ledgerRows();
  t.like(refundRow, { kind: 'refund', request_id: first.request_id });
  t.is(BigInt(refundRow!.amount_units), chargeUnits);
  // The refund on top, the charge marked (no button), the balance shown anew.
  await eventually(async () => JSON.stringify(await ledgerIds()) === JSON.stringify([`txn_${refundRow!.id}`, ...stored.map((row) => `txn_${row.id}`)]), { what: 'the refund row on top of the ledger' });
  t.deepEqual((await page.locator(`tr[data-transaction-id="txn_${refundRow!.id}"] td`).allInnerTexts()).slice(1, 5), ['Refund', rub(chargeUnits), rub(balanceBefore + chargeUnits), 'sim/chat']);
  await chargeRow.getByText(`Refunded (txn_${refundRow!.id})`).waitFor();
  t.is(await chargeRow.getByRole('button').count(), 0, 'a refunded charge offers no second refund');
  await page.getByTestId('account-money').locator('.figure dd').first().getByText(rub(balanceBefore + chargeUnits)).waitFor();
  t.is(BigInt((await database.db('accounts').where({ id: account.id }).first()).balance_units), balanceBefore + chargeUnits);
  await checkAccessibility('account ledger (refunded)');
  await page.setViewportSize({ width: 390, height: 844 });
  const ledgerRegion = page.getByRole('region', { name: 'Ledger rows of the account' });
  t.true(await ledgerRegion.evaluate((element: any) => element.scrollWidth > element.clientWidth), 'at 390 px the ledger scrolls in its region');
  await checkAccessibility('account ledger (390 px)');
  await page.setViewportSize({ width: 1280, height: 900 });
  const refundAudit = (await database.db('audit_log').where({ action: 'balance.refund' }).select('actor', 'target', 'account_id')) as { actor: string; target: string; account_id: string }[];
  t.is(refundAudit.length, 1);
  t.like(refundAudit[0], { target: first.request_id, account_id: account.id });
  t.regex(refundAudit[0]!.actor, /^cabinet:ses_/, 'the browser session refunded it');

  t.deepEqual(checked, ['system', 'request log', 'request log (failures)', 'request log (cabinet pages)', 'jobs', 'jobs (after the cancels)', 'upstreams', 'audit', 'account ledger', 'account ledger (refunded)', 'account ledger (390 px)']);
  // The one refusal the test provoked: Chromium notes the 409 in the console itself.
  t.deepEqual(
    errors.map((line) => line.replace(/^\S+: /, '')),
    ['console.error: Failed to load resource: the server responded with a status of 409 (Conflict)'],
    'no console error but the expected 409',
  );
  await assertLedgerInvariants(t, database.db);
});
