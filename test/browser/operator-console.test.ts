// The operator in Debian's Chromium against a real `gateway serve`, on SQLite and PostgreSQL: an
// admin link printed by `gateway cabinet link --admin` opens the console (the system page, read
// from the admin API), the operator tops up an account through the admin API with the
// browser's session (cookie and CSRF token, as the console's pages send them) and the audit log
// shows the row with the session as its actor; the same change without the CSRF token is
// refused and changes nothing; the account's own cabinet then shows the top-up in its history.
// No console error, no serious axe violation.
import { openPage, seriousViolations, startCabinetGateway, testInBrowser } from './browser.js';

testInBrowser('the operator logs in from an admin link, tops up an account with a reason and sees the audit row; without the CSRF token nothing changes; the account sees the top-up', async (t, database, browser) => {
  const gateway = await startCabinetGateway(t, database);
  const name = `client-${database.backend}`;
  const account = await gateway.cli<{ id: string }>(['accounts', 'create', name]);
  const operator = await openPage(browser);
  await operator.page.goto(await gateway.link({ admin: true }));
  await operator.page.getByRole('heading', { level: 1, name: 'Operator console' }).waitFor();
  t.is(new URL(operator.page.url()).pathname, '/cabinet/console');
  await operator.page.getByRole('heading', { level: 2, name: 'System' }).waitFor();
  t.deepEqual(await seriousViolations(operator.page), [], 'axe on the console');

  const api = operator.context.request;
  const session = await (await api.get(`${gateway.url}/cabinet/api/session`)).json();
  t.is(session.kind, 'admin');
  const topup = (headers: Record<string, string>) =>
    api.post(`${gateway.url}/admin/v1/accounts/${account.id}/topup`, { data: { amount_rub: '250.50', reason: 'invoice 42' }, headers, failOnStatusCode: false });

  const forged = await topup({});
  t.is(forged.status(), 403);
  t.is((await forged.json()).error.code, 'csrf_token_invalid');
  t.is(await database.db('ledger_transactions').where({ account_id: account.id }).count({ n: '*' }).first().then((row: any) => Number(row.n)), 0, 'nothing credited');

  const done = await topup({ 'x-csrf-token': session.csrf_token });
  t.is(done.status(), 200);
  t.like(await done.json(), { account_id: account.id, kind: 'topup', amount_rub: '250.5000', balance_rub: '250.5000', reason: 'invoice 42' });
  const audit = await (await api.get(`${gateway.url}/admin/v1/audit?account=${account.id}&action=balance.topup`)).json();
  t.is(audit.data.length, 1);
  t.is(audit.data[0].action, 'balance.topup');
  t.regex(audit.data[0].actor, /^cabinet:ses_/, 'the browser session is the actor');
  const sessions = await gateway.cli<{ data?: { id: string }[] } | { id: string }[]>(['cabinet', 'sessions', 'ls', '--all']);
  const sessionIds = (Array.isArray(sessions) ? sessions : (sessions.data ?? [])).map((row) => row.id);
  t.true(sessionIds.includes(audit.data[0].actor.slice('cabinet:'.length)), 'the actor is the operator’s live session');

  // The account's side: the credit, exactly, in its history.
  const client = await openPage(browser);
  await client.page.goto(await gateway.link({ account: name }));
  await client.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await client.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'History', exact: true }).click();
  const row = client.page.locator('tr[data-kind="topup"]');
  await row.waitFor();
  t.is(await row.locator('td.number').first().innerText(), '250.5000\u00a0₽');
  t.true((await row.innerText()).includes('invoice 42'));
  t.deepEqual([...operator.errors, ...client.errors], [], 'no console error or uncaught exception');
});
