// The operator's side of payments through the real binary (issue 32): `gateway payments ls/show/
// refund` and `gateway reconcile payments` against a `gateway serve` whose YooKassa is a
// `gateway simulate` process (api_url <sim>/yookassa/v3), so the CLI reaches the same shop as
// the serve. A customer pays in the cabinet; a refund is refused while the money is spent, then allowed
// to take the balance to zero; reconcile finds nothing; a second payment paid at YooKassa whose
// notification never comes (and that no sweeper has seen yet) is the one difference,
// `not_credited`, until the cabinet's read credits it. `api_url: sim` is refused with a
// reason. On SQLite and PostgreSQL.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { Accounts } from '../../src/accounts/accounts.js';
import { Corrections } from '../../src/billing/corrections.js';
import { Ledger } from '../../src/billing/ledger.js';
import { paymentRefundSource, paymentSource } from '../../src/payments/credit-sources.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { loginAs } from '../helpers/cabinet.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { fastJobsConfig } from '../helpers/job-config.js';
import { processEnv, startProcess, startSimulatorProcess, writeSharedConfig } from '../helpers/processes.js';
import { balanceUnits, completeCheckout, ledgerRows, readPayment, startTopUp } from '../payments/yookassa-flow.js';

testOnBackends('payments ls/show/refund and reconcile payments through the binary against a simulated YooKassa shared with serve', async (t, database) => {
  t.timeout(170_000);
  const simulator = await startSimulatorProcess(t);
  const yookassa = { shop_id: '1', secret_key_env: 'YOOKASSA_SECRET_KEY', api_url: `${simulator.url}/yookassa/v3` };
  // No sweep within the test: a payment whose notification is lost stays pending until the cabinet reads it.
  const config = writeSharedConfig(simulator.url, { payments: { sweep_after: '1h', yookassa } });
  const env = processEnv(config, database, { YOOKASSA_SECRET_KEY: 'test_secret_key' });
  const serve = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env);
  t.teardown(() => serve.stop());
  const since = new Date(Date.now() - 60_000).toISOString();

  const shop = await new Accounts(database.db).create('shop');
  const browser = await loginAs(serve.url, database.db, { account: shop.id });
  // A customer pays 500 RUB and comes back: the cabinet asks YooKassa and credits it (the simulated shop notifies nobody: api_url is a URL).
  const first = await startTopUp(t, serve.url, browser, '500');
  await completeCheckout(t, first.confirmation_url, 'pay');
  t.like((await readPayment(serve.url, browser, first.id)).body, { status: 'succeeded', credited_rub: '500.0000' });

  const listed = await runCliJson(['payments', 'ls', '--account', 'shop'], env);
  t.is(listed.has_more, false);
  t.deepEqual(listed.data.map((payment: any) => [payment.id, payment.status, payment.credited_rub, payment.account_name, payment.refunds]), [[first.id, 'succeeded', '500.0000', 'shop', []]]);
  t.deepEqual(await runCliJson(['payments', 'show', first.id], env), listed.data[0]);

  // 450 of the 500 RUB spent: refunding 100 is refused, nothing written, until --allow-spent takes the balance to zero.
  await new Corrections(database.db, new Ledger(database.db)).adjust({ accountId: shop.id, amountUnits: -4_500_000n, reason: 'spent', actor: 'test:payments-cli' });
  const refused = await runCli(['payments', 'refund', first.id, '--amount', '100', '--json'], env);
  t.is(refused.exitCode, 1);
  t.deepEqual(JSON.parse(refused.stderr), {
    error: { code: 'refund_exceeds_available', message: '100.0000 RUB would be refunded but only 50.0000 RUB of the account is unspent; nothing was refunded. Refund anyway to take the balance to zero.' },
  });
  t.is(await balanceUnits(database.db, shop.id), 500_000n);
  const refund = await runCliJson(['payments', 'refund', first.id, '--amount', '100', '--allow-spent', '--reason', 'asked'], env);
  t.like(refund, { payment_id: first.id, status: 'succeeded', amount: { amount: '100.00', currency: 'rub' }, share_rub: '100.0000', debit_rub: '50.0000' });
  t.is(await balanceUnits(database.db, shop.id), 0n);
  const rest = await runCli(['payments', 'refund', first.id, '--allow-spent'], env);
  t.is(rest.exitCode, 0, rest.stderr);
  t.regex(rest.stdout, new RegExp(`^pref_\\w+: refunded 400\\.00 rub of ${first.id} to the card; 0\\.0000 RUB taken from the balance of shop \\(400\\.0000 RUB of the credit\\)$`));
  t.is(await balanceUnits(database.db, shop.id), 0n);
  t.is((await database.db('payments').where({ id: first.id }).first()).status, 'refunded');
  t.deepEqual(await ledgerRows(database.db, shop.id), [
    { kind: 'topup', amount: 5_000_000n, source: paymentSource('yookassa', first.provider_payment_id) },
    { kind: 'adjustment', amount: -4_500_000n, source: null },
    { kind: 'refund', amount: -500_000n, source: paymentRefundSource(refund.id) },
  ]);

  // The ledger and YooKassa agree: the payment, its credit and its two refunds.
  const clean = await runCli(['reconcile', 'payments', '--since', since, '--json'], env);
  t.is(clean.exitCode, 0, clean.stderr);
  const cleanReport = JSON.parse(clean.stdout);
  t.deepEqual({ ...cleanReport, until: undefined }, { since, until: undefined, checked: { yookassa: 1 }, differences: [] });

  // Paid at YooKassa, its notification lost, not yet swept: the ledger has no topup row for it.
  const second = await startTopUp(t, serve.url, browser, '200');
  await completeCheckout(t, second.confirmation_url, 'pay', 'notify=none');
  const differs = await runCli(['reconcile', 'payments', '--since', since, '--json'], env);
  t.is(differs.exitCode, 3, differs.stderr);
  t.deepEqual(JSON.parse(differs.stdout).checked, { yookassa: 2 });
  t.deepEqual(JSON.parse(differs.stdout).differences, [
    {
      kind: 'not_credited',
      provider: 'yookassa',
      provider_payment_id: second.provider_payment_id,
      payment_id: second.id,
      account_id: shop.id,
      ledger_rub: null,
      provider_amount: { amount: '200.00', currency: 'rub' },
      detail: 'yookassa says succeeded; no topup row here (our payment is pending)',
    },
  ]);
  const text = await runCli(['reconcile', 'payments', '--since', since, '--provider', 'yookassa'], env);
  t.is(text.exitCode, 3);
  const lines = text.stdout.split('\n');
  t.is(lines[0], `not_credited yookassa ${second.provider_payment_id} ${second.id} ${shop.id} (ledger -, yookassa 200.00 rub): yookassa says succeeded; no topup row here (our payment is pending)`);
  t.regex(lines[1]!, /^1 difference \(not_credited 1\): 2 yookassa payments compared with the ledger, /);
  t.is(lines.length, 2);

  // The customer's return credits it: nothing differs any more.
  t.like((await readPayment(serve.url, browser, second.id)).body, { status: 'succeeded', credited_rub: '200.0000' });
  const settled = await runCli(['reconcile', 'payments', '--since', since], env);
  t.is(settled.exitCode, 0, settled.stderr);
  t.regex(settled.stdout, /^Nothing differs: 2 yookassa payments compared with the ledger, \d{4}-\d\d-\d\dT[\d:.]+Z — \d{4}-\d\d-\d\dT[\d:.]+Z\.$/);
  t.is(await balanceUnits(database.db, shop.id), 2_000_000n);
  await assertLedgerInvariants(t, database.db);

  // With the built-in simulator (api_url: sim), the CLI cannot reach the serve's shop: it says so, and refunds nothing.
  const simConfig = path.join(mkdtempSync(path.join(tmpdir(), 'gw-sim-')), 'gateway.yaml');
  writeFileSync(simConfig, stringify(fastJobsConfig({ payments: { yookassa: { ...yookassa, api_url: 'sim' } } })));
  const simEnv = { ...env, GATEWAY_CONFIG: simConfig };
  const unsupported = await runCli(['payments', 'refund', second.id, '--json'], simEnv);
  t.is(unsupported.exitCode, 1);
  t.deepEqual(JSON.parse(unsupported.stderr).error.code, 'payment_provider_unavailable');
  t.regex(JSON.parse(unsupported.stderr).error.message, /^this command cannot reach the payment providers: payments\.yookassa\.api_url is sim: that simulator lives inside each serving process, out of this command's reach\. Refund in the console or the admin API, or point api_url at a `gateway simulate` server \(http:\/\/HOST:PORT\/yookassa\/v3\)/);
});

test('oclif resolves both `gateway reconcile` (upstream usage) and its subcommand `gateway reconcile payments`', async (t) => {
  const env = { GATEWAY_LOG_LEVEL: 'warn' };
  const usage = await runCli(['reconcile', '--help'], env);
  t.is(usage.exitCode, 0, usage.stderr);
  t.regex(usage.stdout, /USAGE\n {2}\$ gateway reconcile --since <value>/);
  t.regex(usage.stdout, /COMMANDS\n {2}reconcile payments/);
  const payments = await runCli(['reconcile', 'payments', '--help'], env);
  t.is(payments.exitCode, 0, payments.stderr);
  t.regex(payments.stdout, /USAGE\n {2}\$ gateway reconcile payments --since <value>/);
  t.regex(payments.stdout, /--provider=<option>/);
  const missing = await runCli(['reconcile', 'payments'], env);
  t.is(missing.exitCode, 2);
  t.regex(missing.stderr, /Missing required flag since/);
});
