// A stranger signs up by email in Debian's Chromium against a real `gateway serve`, on SQLite
// and PostgreSQL (issue 31, "Email sign-up" and "Password reset"): the test runs its own SMTP
// server (smtp-server) and reads the messages from it. The stranger signs up on the page,
// follows the verification link, signs in with the password, makes a key in the keys page,
// calls with the official OpenAI SDK and sees the charge in the history, exactly the ledger's.
// Then, from another browser, the password is reset by the emailed link: the first browser's
// session dies, the old password no longer opens, the new one does. axe-core finds no serious
// or critical violation on the new pages at desktop width and at 390 px; no console error.
// (Code passed to page.evaluate runs in the page; the tests' TypeScript has no DOM types.)
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { formatRub } from '../../src/util/money.js';
import { linkIn, startSmtpServer } from '../helpers/smtp.js';
import { openPage, seriousViolations, startCabinetGateway, testInBrowser } from './browser.js';

/** The emailed link, pointed at this gateway's address (the email's origin is cabinet.public_url, the configured port's). */
const onGateway = (gatewayUrl: string, link: { path: string; token: string }) => `${gatewayUrl}${link.path}#token=${link.token}`;

async function heading(page: Page, name: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}

testInBrowser('a stranger signs up by email, confirms the address from the email, signs in, makes a key, calls with the OpenAI SDK and sees the charge; a password reset ends the old session; axe at desktop and 390 px, no console error', async (t, database, browser) => {
  const smtp = await startSmtpServer(t);
  const gateway = await startCabinetGateway(t, database, {
    config: (config) => {
      config.cabinet = { ...config.cabinet, signup: 'open', signup_bonus: '100.00' };
      config.email = { smtp_url_env: 'TEST_SMTP_URL', from: 'Gateway <gateway@example.com>' };
    },
    env: { TEST_SMTP_URL: smtp.url },
  });
  const email = `stranger-${database.backend}@example.com`;
  const { page, errors } = await openPage(browser);
  const checked: string[] = [];
  const checkAccessibility = async (on: Page, label: string) => {
    t.deepEqual(await seriousViolations(on), [], `axe on ${label}`);
    checked.push(label);
  };

  // The login page offers email and password, sign-up and the operator's link, and names no command.
  await page.goto(`${gateway.url}/cabinet/login`);
  await page.getByRole('heading', { level: 2, name: 'Sign in with email' }).waitFor();
  t.false((await page.locator('main').innerText()).includes('gateway cabinet'), 'no command');
  await checkAccessibility(page, 'login');
  await page.getByRole('link', { name: 'Create an account' }).click();
  await heading(page, 'Create an account');
  await checkAccessibility(page, 'sign-up');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill('a long first password');
  await page.getByRole('button', { name: 'Create account' }).click();
  t.is(await page.getByTestId('signup-sent').innerText(), `Check your email: we sent a message to ${email}. Follow the link in it to confirm the address, then sign in.`);

  // The verification email, in the page's language, and its link.
  const verification = await smtp.nextTo(email);
  t.is(verification.subject, 'Confirm your email address');
  const link = linkIn(verification);
  t.is(link.path, '/cabinet/verify');
  await page.goto(onGateway(gateway.url, link));
  t.is(await page.getByTestId('verify-done').innerText(), `Your address ${email} is confirmed. You can sign in now.`);
  t.is(new URL(page.url()).hash, '', 'the token left the address bar');
  await checkAccessibility(page, 'verify');

  // Sign in with the password: the overview with the sign-up bonus, exactly.
  await page.getByRole('link', { name: 'Go to sign in' }).click();
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill('a long first password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await heading(page, 'Overview');
  t.true((await page.locator('.figures').first().innerText()).includes('100.0000\u00a0₽'));

  // A key made in the keys page, used by the OpenAI SDK.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys', exact: true }).click();
  await heading(page, 'API keys');
  await page.getByLabel('Name', { exact: true }).fill('sdk');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.getByTestId('new-key-secret').innerText();
  await page.getByRole('button', { name: 'I have saved it' }).click();
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 });
  await openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'hello from a stranger' }] });

  // The charge in the history: what the ledger holds.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'History', exact: true }).click();
  const charge = page.locator('tr[data-kind="charge"]', { hasText: 'sim/chat' }).first();
  await charge.waitFor();
  const user = await database.db('users').where({ email }).first();
  const { account_id: accountId } = await database.db('account_members').where({ user_id: user.id }).first();
  const ledger = await database.db('ledger_transactions').where({ account_id: accountId, model: 'sim/chat' }).first();
  t.is(await charge.locator('td.number').first().innerText(), `${formatRub(BigInt(ledger.amount_units))}\u00a0₽`);

  // The profile page of a user.
  await page.getByRole('link', { name: 'Profile' }).click();
  await heading(page, 'Profile');
  await page.getByRole('heading', { level: 2, name: 'Change password' }).waitFor();
  await checkAccessibility(page, 'profile');

  // Another browser, on a phone: the forgotten password. The link resets it and every session ends.
  const phone = await openPage(browser);
  await phone.page.setViewportSize({ width: 390, height: 844 });
  await phone.page.goto(`${gateway.url}/cabinet/login`);
  await phone.page.getByRole('heading', { level: 2, name: 'Sign in with email' }).waitFor();
  await checkAccessibility(phone.page, 'login at 390 px');
  await phone.page.getByRole('link', { name: 'Forgot your password?' }).click();
  await heading(phone.page, 'Reset your password');
  await checkAccessibility(phone.page, 'forgot at 390 px');
  await phone.page.getByLabel('Email', { exact: true }).fill(email);
  await phone.page.getByRole('button', { name: 'Send the link' }).click();
  await phone.page.getByTestId('reset-sent').waitFor();
  const reset = linkIn(await smtp.nextTo(email, 2));
  t.is(reset.path, '/cabinet/reset');
  await phone.page.goto(onGateway(gateway.url, reset));
  await heading(phone.page, 'Set a new password');
  await checkAccessibility(phone.page, 'reset at 390 px');
  await phone.page.getByLabel('New password', { exact: true }).fill('a long second password');
  await phone.page.getByRole('button', { name: 'Set the password' }).click();
  await phone.page.getByTestId('reset-done').waitFor();
  await phone.page.goto(`${gateway.url}/cabinet/signup`);
  await heading(phone.page, 'Create an account');
  await checkAccessibility(phone.page, 'sign-up at 390 px');

  // The first browser's session died with the reset.
  await page.reload();
  await heading(page, 'Not signed in');
  await page.getByRole('link', { name: 'Go to sign in' }).click();
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill('a long first password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  t.is(await page.getByRole('alert').innerText(), 'The email or password is wrong.');
  await page.getByLabel('Password', { exact: true }).fill('a long second password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await heading(page, 'Overview');

  t.deepEqual(checked, ['login', 'sign-up', 'verify', 'profile', 'login at 390 px', 'forgot at 390 px', 'reset at 390 px', 'sign-up at 390 px']);
  // The only console errors: Chromium's line for the two 401s the test provoked (the dead session's reload, the old password).
  const unauthorized = 'console.error: Failed to load resource: the server responded with a status of 401 (Unauthorized)';
  t.deepEqual(errors, [`${gateway.url}/cabinet/profile: ${unauthorized}`, `${gateway.url}/cabinet/login: ${unauthorized}`]);
  t.deepEqual(phone.errors, []);
});
