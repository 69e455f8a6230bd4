// A shop's website logs its customer in without a shell (issue 31): a script with an admin token
// and plain fetch mints a login link through POST /admin/v1/accounts/:id/login-link, answered as
// `gateway cabinet link --account A --json` prints it ({url, path, expires_at}: the address of
// the serve that answered, or cabinet.public_url when set), and the customer's browser opens the
// cabinet with it — POST /cabinet/api/login with the token from the link's fragment — once.
// Minting is audited with the token. On both databases.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { readAudit } from '../../src/audit/audit-log.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { createAdminToken } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { exampleConfigPath, startGateway } from '../helpers/gateway.js';
import { answerSchema } from './admin-helpers.js';

const start = Date.UTC(2026, 10, 28, 7, 30, 0);

/** What the shop's script does: one fetch with its admin token. */
async function mintLoginLink(gatewayUrl: string, adminToken: string, account: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gatewayUrl}/admin/v1/accounts/${encodeURIComponent(account)}/login-link`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}` } });
  return { status: response.status, body: await response.json() };
}

/** What the customer's browser does with the link: the cabinet's login page posts the fragment's token. */
async function openLink(gatewayUrl: string, link: string): Promise<{ status: number; body: any; cookie: string | undefined }> {
  const token = new URLSearchParams(new URL(link).hash.slice(1)).get('token');
  const response = await fetch(`${gatewayUrl}/cabinet/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  return { status: response.status, body: await response.json(), cookie: response.headers.getSetCookie()[0]?.split(';')[0] };
}

testOnBackends('a script with an admin token mints a login link for an account and the customer opens the cabinet with it, once; audited with the token', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { now: clock.now });
  const { id: tokenId, token } = await createAdminToken(gateway.services, 'shop website');
  const account = await gateway.services.accounts.create('shop-customer-42');
  await gateway.services.ledger.credit(account.id, 1_234_500n, 'topup');

  const minted = await mintLoginLink(gateway.url, token, 'shop-customer-42');
  t.is(minted.status, 201, JSON.stringify(minted.body));
  t.true(answerSchema('POST', '/admin/v1/accounts/:id/login-link').safeParse(minted.body).success);
  const { path } = minted.body;
  t.regex(path, /^\/cabinet\/login#token=gwl_[\w-]+$/);
  // No cabinet.public_url: the address this serve recorded, as the CLI would print it; 15 minutes (cabinet.link_ttl).
  t.deepEqual(minted.body, { url: `${gateway.url}${path}`, path, expires_at: '2026-11-28T07:45:00.000Z' });

  const opened = await openLink(gateway.url, minted.body.url);
  t.is(opened.status, 200, JSON.stringify(opened.body));
  t.like(opened.body, { kind: 'account', account: { id: account.id, name: 'shop-customer-42' } });
  t.regex(opened.cookie ?? '', /^gateway_session=gws_/);
  const overview = await fetch(`${gateway.url}/cabinet/api/overview`, { headers: { cookie: opened.cookie! } });
  t.is(overview.status, 200);
  t.like(await overview.json(), { balance_rub: '123.4500', available_rub: '123.4500' });

  // Once: a second opening is refused, and a link of another account opens only that one.
  const reopened = await openLink(gateway.url, minted.body.url);
  t.is(reopened.status, 401, JSON.stringify(reopened.body));
  t.is(reopened.body.error.code, 'login_link_invalid');
  // By id as well as by name; an unknown account is 404.
  const byId = await mintLoginLink(gateway.url, token, account.id);
  t.is(byId.status, 201);
  t.not(byId.body.path, path);
  const missing = await mintLoginLink(gateway.url, token, 'nobody');
  t.is(missing.status, 404);
  t.is(missing.body.error.code, 'not_found');
  // Past cabinet.link_ttl the link opens nothing.
  clock.advance(15 * 60_000);
  t.is((await openLink(gateway.url, byId.body.url)).status, 401);

  const audit = await readAudit(database.db, { action: 'login_link.create', limit: 10 });
  t.deepEqual(
    audit.map((entry) => [entry.actor, entry.accountId, entry.details]),
    [
      [`admin-token:${tokenId}`, account.id, { kind: 'account', expires_at: '2026-11-28T07:45:00.000Z' }],
      [`admin-token:${tokenId}`, account.id, { kind: 'account', expires_at: '2026-11-28T07:45:00.000Z' }],
    ],
  );
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('with cabinet.public_url set, the minted link points there, as the CLI\'s does', async (t, database) => {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, database, { raw: { ...raw, cabinet: { ...raw.cabinet, public_url: 'https://gateway.example.com', link_ttl: '1h' } }, now: testClock({ start }).now });
  const { token } = await createAdminToken(gateway.services);
  await gateway.services.accounts.create('acme');
  const minted = await mintLoginLink(gateway.url, token, 'acme');
  t.is(minted.status, 201);
  t.deepEqual(minted.body, { url: `https://gateway.example.com${minted.body.path}`, path: minted.body.path, expires_at: '2026-11-28T08:30:00.000Z' });
  // The link opens the cabinet of the gateway that serves that address (here, this one).
  t.is((await openLink(gateway.url, minted.body.url)).status, 200);
});
