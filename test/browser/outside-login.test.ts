// Logins proven by someone else, as a stranger does them in Chromium (issue 31), against a real
// `gateway serve` in invite mode: the login page offers a local OpenID Connect provider
// (oidc-provider, started here) and Telegram. Without an invite code the OIDC sign-up is
// refused with a message; with one the stranger passes the provider's login and consent and
// lands in their new account; the code does not work twice. Telegram's login page is played by
// the test (the browser's request to oauth.telegram.org is answered with Telegram's redirect back
// and its signed data), since the tests reach nothing beyond loopback. The Telegram user's Profile
// page then shows the bot's "Connect Telegram" section (connected, disconnected, a deep link), in
// English and Russian. axe at desktop and 390 px.
import type { Page } from 'playwright-core';
import { telegramHash } from '../../src/users/telegram-login.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';
import { openPage, seriousViolations, startCabinetGateway, testInBrowser } from './browser.js';

const botToken = '7654321:AAF-browser-test-bot-token_0123456789';

testInBrowser('a stranger signs up by OIDC with an invite code (refused without one, the code spent once) and by Telegram, whose Profile connects the bot; the login and profile pages pass axe at desktop and 390 px', async (t, database, browser) => {
  const provider = await startOidcProvider(t);
  const gateway = await startCabinetGateway(t, database, {
    config: (config) => {
      config.cabinet = {
        ...config.cabinet,
        signup: 'invite',
        oidc: [{ name: 'local', label: 'Local ID', issuer: provider.issuer, client_id: provider.clientId, client_secret_env: 'TEST_OIDC_SECRET' }],
        telegram_login: { bot_username: 'gateway_test_bot', bot_token_env: 'TEST_TELEGRAM_TOKEN' },
      };
      // The same bot as the Telegram login's: the Profile page offers to connect it (serve runs no bot here).
      config.bot = { username: 'gateway_test_bot', token_env: 'TEST_TELEGRAM_TOKEN', default_model: 'sim/chat' };
    },
    env: { TEST_OIDC_SECRET: provider.clientSecret, TEST_TELEGRAM_TOKEN: botToken },
  });
  provider.register(`${gateway.url}/cabinet/api/oidc/local/callback`);
  provider.accounts.set('stranger', { email: 'stranger@example.com', email_verified: true, name: 'Stranger' });
  provider.accounts.set('second', { email: 'second@example.com', email_verified: true, name: 'Second' });
  const invites = await gateway.cli<{ data: { code: string }[] }>(['invites', 'create', '--count', '2']);
  const [oidcCode, telegramCode] = invites.data.map((invite) => invite.code);

  const { page, context, errors } = await openPage(browser);
  const checkAccessibility = async (label: string) => {
    t.deepEqual(await seriousViolations(page), [], `axe on ${label} at desktop width`);
    await page.setViewportSize({ width: 390, height: 844 });
    t.deepEqual(await seriousViolations(page), [], `axe on ${label} at 390 px`);
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  await page.goto(`${gateway.url}/cabinet/login`);
  const oidcButton = page.getByRole('link', { name: 'Sign in with Local ID' });
  await oidcButton.waitFor();
  t.true(await page.getByRole('link', { name: 'Sign in with Telegram' }).isVisible());
  const inviteField = page.getByLabel('Invite code');
  t.true(await inviteField.isVisible());
  await checkAccessibility('the login page');

  // No code: the provider signs the stranger in, the gateway refuses the sign-up and says why.
  provider.nextLogin = 'stranger';
  await oidcButton.click();
  await page.waitForURL(`${gateway.url}/cabinet/login?login_error=invite_required`);
  await page.getByRole('alert').filter({ hasText: 'enter your invite code' }).waitFor();
  await checkAccessibility('the login page with a refusal');

  // With the code: through the provider again, into the new account.
  await inviteField.fill(oidcCode!);
  await page.getByRole('link', { name: 'Sign in with Local ID' }).click();
  await page.waitForURL(`${gateway.url}/cabinet/`);
  await page.locator('.who').filter({ hasText: 'stranger@example.com' }).waitFor();

  // The same code for someone else: refused.
  const other = await openPage(browser);
  await other.page.goto(`${gateway.url}/cabinet/login`);
  await other.page.getByLabel('Invite code').fill(oidcCode!);
  provider.nextLogin = 'second';
  await other.page.getByRole('link', { name: 'Sign in with Local ID' }).click();
  await other.page.waitForURL(`${gateway.url}/cabinet/login?login_error=invite_invalid`);
  await other.page.getByRole('alert').filter({ hasText: 'invalid, expired or already used' }).waitFor();

  // Telegram, played by the test: its login page answers with the redirect back and the signed data.
  const telegram = await openPage(browser);
  await telegram.context.route('https://oauth.telegram.org/**', async (route) => {
    const asked = new URL(route.request().url());
    t.is(asked.searchParams.get('bot_id'), '7654321');
    t.is(asked.searchParams.get('origin'), gateway.url);
    const data: Record<string, string> = { id: '5150', first_name: 'Tele', username: 'tele', auth_date: String(Math.floor(Date.now() / 1000)) };
    const result = Buffer.from(JSON.stringify({ ...data, id: 5150, hash: telegramHash(data, botToken) })).toString('base64url');
    await route.fulfill({ status: 302, headers: { location: `${asked.searchParams.get('return_to')}#tgAuthResult=${result}` } });
  });
  await telegram.page.goto(`${gateway.url}/cabinet/login`);
  await telegram.page.getByLabel('Invite code').fill(telegramCode!);
  await telegram.page.getByRole('link', { name: 'Sign in with Telegram' }).click();
  await telegram.page.waitForURL(`${gateway.url}/cabinet/`);
  await telegram.page.locator('.who').waitFor();
  const session = (await (await telegram.page.request.get(`${gateway.url}/cabinet/api/session`)).json()) as { method: string; role: string };
  t.is(session.method, 'telegram');
  t.is(session.role, 'owner');

  // The Profile page's Telegram bot section. A Telegram sign-in is already the bot's link; once
  // disconnected, "Connect Telegram" gives a one-time deep link that opens the bot. axe finds no
  // serious violation in either state, at desktop width and at 390 px, in English and Russian.
  const checkBoth = async (on: Page, label: string) => {
    t.deepEqual(await seriousViolations(on), [], `axe on ${label} at desktop width`);
    await on.setViewportSize({ width: 390, height: 844 });
    t.deepEqual(await seriousViolations(on), [], `axe on ${label} at 390 px`);
    await on.setViewportSize({ width: 1280, height: 900 });
  };
  const botSection = telegram.page.getByRole('region', { name: 'Telegram bot' });
  await telegram.page.getByRole('link', { name: 'Profile', exact: true }).click();
  await botSection.waitFor();
  t.is(await botSection.locator('p').first().innerText(), 'Your Telegram is connected to @gateway_test_bot.');
  await checkBoth(telegram.page, 'the profile, Telegram connected');
  await botSection.getByRole('button', { name: 'Disconnect Telegram' }).click();
  await botSection.getByRole('button', { name: 'Connect Telegram' }).click();
  const deepLink = botSection.getByRole('link', { name: 'Open the bot in Telegram' });
  t.regex((await deepLink.getAttribute('href')) ?? '', /^https:\/\/t\.me\/gateway_test_bot\?start=gwt_[\w-]+$/);
  t.is(await deepLink.getAttribute('target'), '_blank');
  t.true((await botSection.innerText()).includes('Use your account from Telegram with @gateway_test_bot'));
  await checkBoth(telegram.page, 'the profile, Telegram not connected');
  const russian = await openPage(browser, { locale: 'ru-RU' });
  await russian.context.addCookies(await telegram.context.cookies());
  await russian.page.goto(`${gateway.url}/cabinet/profile`);
  const russianSection = russian.page.getByRole('region', { name: 'Telegram-бот' });
  await russianSection.getByRole('button', { name: 'Подключить Telegram' }).waitFor();
  t.true((await russianSection.innerText()).includes('Пользуйтесь аккаунтом в Telegram через @gateway_test_bot'));
  await checkBoth(russian.page, 'the profile in Russian');

  const used = await gateway.cli<{ data: { status: string }[] }>(['invites', 'ls', '--all']);
  t.deepEqual(used.data.map((invite) => invite.status), ['used', 'used']);
  t.deepEqual([...errors, ...other.errors, ...telegram.errors, ...russian.errors], []);
  await Promise.all([context.close(), other.context.close(), telegram.context.close(), russian.context.close()]);
});
