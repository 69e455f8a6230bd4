// Members in Chromium against a real `gateway serve`, on SQLite and PostgreSQL (issue 31): the
// owner (an operator's link acts as owner) invites someone from the Members page (no `email`
// here, so the page shows the link to pass on); the invited person opens it, chooses a password
// and lands in the account as a member. The member can neither top up nor manage members: the
// API answers 403 (owner_required; the admin API's top-up refuses an account session) and the
// pages offer neither (no invite form, no role or remove buttons, no webhook rotation). The
// owner sees the new member. The operator disables the member on the console's Users page and
// the member's session ends. axe finds no serious violation on the Members, Join and Users pages
// at desktop width and at 390 px; no page logs a console error.
import type { Page } from 'playwright-core';
import { openPage, seriousViolations, startCabinetGateway, testInBrowser } from './browser.js';

async function visit(page: Page, link: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: link, exact: true }).waitFor();
}

/** A request from the page, as its own code sends it (the cookie, and the session's CSRF token). */
function fromPage(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; code: string | null }> {
  return page.evaluate(
    async ([method, path, body]) => {
      const session: any = await (await fetch('/cabinet/api/session')).json();
      const headers: Record<string, string> = { 'x-csrf-token': session.csrf_token };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(path as string, { method: method as string, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const answer: any = await response.json().catch(() => null);
      return { status: response.status, code: answer?.error?.code ?? null };
    },
    [method, path, body] as const,
  );
}

testInBrowser('an owner invites a member from the Members page; the member joins with a password and can neither top up nor manage members, in the API or the pages; axe at desktop and 390 px', async (t, database, browser) => {
  const gateway = await startCabinetGateway(t, database);
  const name = `members-${database.backend}`;
  const account = await gateway.cli<{ id: string }>(['accounts', 'create', name]);
  await gateway.cli(['balance', 'topup', '--account', name, '--amount', '10']);

  const owner = await openPage(browser);
  await owner.page.goto(await gateway.link({ account: name }));
  await owner.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await visit(owner.page, 'Members');
  t.deepEqual(await seriousViolations(owner.page), [], 'axe on the owner\'s Members page');
  await owner.page.getByLabel('Email', { exact: true }).fill('new.member@example.test');
  await owner.page.getByRole('combobox', { name: /^Role/ }).selectOption('member');
  await owner.page.getByRole('button', { name: 'Send invitation' }).click();
  const printed = await owner.page.getByTestId('invitation-link').innerText();
  t.regex(printed, /\/cabinet\/join#token=gwe_[\w-]+$/);
  await owner.page.getByText('new.member@example.test as Member').waitFor(); // the pending invitation
  t.deepEqual(await seriousViolations(owner.page), [], 'axe on the Members page with the invitation');

  // The invited person opens the link (at this gateway's address) and chooses a password.
  const member = await openPage(browser);
  const link = new URL(printed);
  await member.page.goto(`${gateway.url}${link.pathname}${link.hash}`);
  await member.page.getByRole('heading', { level: 1, name: 'Join an account' }).waitFor();
  t.is(new URL(member.page.url()).hash, '', 'the token left the address bar');
  t.deepEqual(await seriousViolations(member.page), [], 'axe on the Join page');
  await member.page.setViewportSize({ width: 390, height: 844 });
  t.deepEqual(await seriousViolations(member.page), [], 'axe on the Join page at 390 px');
  await member.page.setViewportSize({ width: 1280, height: 900 });
  await member.page.getByLabel('Name', { exact: true }).fill('New Member');
  await member.page.getByLabel('Password', { exact: true }).fill('a long enough password');
  await member.page.getByRole('button', { name: 'Accept the invitation' }).click();
  await member.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  t.is(await member.page.locator('.who').innerText(), name);

  // The API refuses the member what only owners may do, and nothing changes.
  t.deepEqual(await fromPage(member.page, 'POST', '/cabinet/api/members/invite', { email: 'friend@example.test', role: 'owner' }), { status: 403, code: 'owner_required' });
  t.deepEqual(await fromPage(member.page, 'POST', '/cabinet/api/webhook-secret/rotate'), { status: 403, code: 'owner_required' });
  t.deepEqual(await fromPage(member.page, 'DELETE', '/cabinet/api/members/usr_anyone'), { status: 403, code: 'owner_required' });
  t.deepEqual(await fromPage(member.page, 'POST', `/admin/v1/accounts/${account.id}/topup`, { amount_rub: '100' }), { status: 403, code: 'forbidden' });
  const balance = await gateway.cli<{ balance_rub: string }>(['balance', 'show', '--account', name]);
  t.is(balance.balance_rub, '10.0000');

  // The pages offer neither: no invite form, no role or remove buttons, no webhook rotation, no top-up.
  await visit(member.page, 'Members');
  await member.page.getByRole('cell', { name: 'New Member' }).waitFor();
  t.is(await member.page.getByRole('heading', { name: 'Invite someone' }).count(), 0);
  t.is(await member.page.getByRole('button', { name: /Make owner|Make member|Remove/ }).count(), 0);
  // (The navigation's Top up page is the customer's own payment, which the API lets a member make; issue 32.)
  t.is(await member.page.locator('main').getByText(/top up/i).count(), 0);
  t.deepEqual(await seriousViolations(member.page), [], 'axe on the member\'s Members page');
  await member.page.setViewportSize({ width: 390, height: 844 });
  t.deepEqual(await seriousViolations(member.page), [], 'axe on the member\'s Members page at 390 px');
  await member.page.setViewportSize({ width: 1280, height: 900 });
  await visit(member.page, 'API keys');
  await member.page.getByRole('button', { name: 'Show secret' }).waitFor();
  t.is(await member.page.getByRole('button', { name: 'Rotate secret' }).count(), 0);

  // The owner sees the member, with the controls a member lacks.
  await owner.page.reload();
  await owner.page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
  const row = owner.page.locator('tr', { hasText: 'new.member@example.test' });
  await row.getByRole('cell', { name: 'Member', exact: true }).waitFor();
  t.is(await row.getByRole('button', { name: /Make owner/ }).count(), 1);
  await owner.page.setViewportSize({ width: 390, height: 844 });
  t.deepEqual(await seriousViolations(owner.page), [], 'axe on the owner\'s Members page at 390 px');
  await visit(owner.page, 'API keys').catch(async () => {
    // At 390 px the navigation may wrap; the link is the same.
    await owner.page.goto(`${gateway.url}/cabinet/keys`);
  });
  await owner.page.getByRole('button', { name: 'Rotate secret' }).waitFor();

  t.deepEqual(owner.errors, [], 'no console error');
  // The member's browser logs only what the test made it meet: the visitor's session probe on the
  // Join page (401: nobody signed in yet) and the four refusals asked for above.
  const failedLoad = (status: string) => `console.error: Failed to load resource: the server responded with a status of ${status}`;
  t.deepEqual(
    member.errors.map((error) => `${new URL(error.split(': console.error')[0]!).pathname}: ${error.slice(error.indexOf('console.error'))}`),
    [`/cabinet/join: ${failedLoad('401 (Unauthorized)')}`, ...Array.from({ length: 4 }, () => `/cabinet/: ${failedLoad('403 (Forbidden)')}`)],
  );

  // The operator's console: the Users page disables the member (confirmed), whose session ends at once.
  const operator = await openPage(browser);
  await operator.page.goto(await gateway.link({ admin: true }));
  await operator.page.getByRole('heading', { level: 1, name: 'Operator console' }).waitFor();
  await visit(operator.page, 'Users');
  const userRow = operator.page.locator('tr', { hasText: 'new.member@example.test' });
  await userRow.getByRole('cell', { name: 'Enabled', exact: true }).waitFor();
  t.deepEqual(await seriousViolations(operator.page), [], 'axe on the console\'s Users page');
  operator.page.once('dialog', (dialog) => void dialog.accept());
  await userRow.getByRole('button', { name: /^Disable/ }).click();
  await userRow.getByRole('cell', { name: 'Disabled', exact: true }).waitFor();
  await operator.page.setViewportSize({ width: 390, height: 844 });
  t.deepEqual(await seriousViolations(operator.page), [], 'axe on the console\'s Users page at 390 px');
  t.deepEqual(await fromPage(member.page, 'GET', '/cabinet/api/overview'), { status: 401, code: 'session_required' });
  t.deepEqual(operator.errors, [], 'no console error in the console');
});
