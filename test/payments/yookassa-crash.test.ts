// kill -9 between YooKassa's success and the credit (issue 32, "Crashes"): a customer pays
// while `gateway serve` is running, the notification never comes, and the process is killed
// before anything credited the payment. The next process's sweeper asks YooKassa and credits
// it, once. The simulated YooKassa is a `gateway simulate` process of its own, so the payment
// outlives the killed serve, as a real one would.
import { Accounts } from '../../src/accounts/accounts.js';
import { paymentSource } from '../../src/payments/credit-sources.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { loginAs } from '../helpers/cabinet.js';
import { eventually } from '../helpers/eventually.js';
import { processEnv, startProcess, startSimulatorProcess, writeSharedConfig } from '../helpers/processes.js';
import { balanceUnits, completeCheckout, ledgerRows, readPayment, startTopUp } from './yookassa-flow.js';

testOnBackends('a payment made before kill -9 and never notified is credited exactly once by the next process', async (t, database) => {
  t.timeout(120_000);
  const simulator = await startSimulatorProcess(t);
  const yookassa = { shop_id: '1', secret_key_env: 'YOOKASSA_SECRET_KEY', api_url: `${simulator.url}/yookassa/v3` };
  // The first process would sweep only after an hour; the next one after a second, every 250 ms.
  const before = writeSharedConfig(simulator.url, { payments: { sweep_after: '1h', yookassa } });
  const after = writeSharedConfig(simulator.url, { payments: { sweep_after: '1s', yookassa }, holds: { sweep_interval: '250ms' } });
  const secret = { YOOKASSA_SECRET_KEY: 'test_secret_key' };
  const serve = (config: string) => startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], processEnv(config, database, secret));

  const account = await new Accounts(database.db).create(`payer-${process.pid}-${Date.now()}`);
  const doomed = await serve(before);
  const browser = await loginAs(doomed.url, database.db, { account: account.id });
  const started = await startTopUp(t, doomed.url, browser, '750.25');
  t.true(started.confirmation_url.startsWith(`${simulator.url}/yookassa/checkout/`));
  // Paid at YooKassa; its notification is lost.
  t.is(await completeCheckout(t, started.confirmation_url, 'pay', 'notify=none'), `${doomed.url}/cabinet/topup?payment=${started.id}`);
  t.is((await database.db('payments').where({ id: started.id }).first()).status, 'pending');
  await doomed.kill();
  t.deepEqual(await ledgerRows(database.db, account.id), [], 'nothing was credited before the kill');

  const next = await serve(after);
  t.teardown(() => next.stop());
  await eventually(async () => (await database.db('payments').where({ id: started.id }).first()).status === 'succeeded', { what: "the next process's sweeper credited the payment" });
  const expected = [{ kind: 'topup', amount: 7_502_500n, source: paymentSource('yookassa', started.provider_payment_id) }];
  t.deepEqual(await ledgerRows(database.db, account.id), expected);
  t.is(await balanceUnits(database.db, account.id), 7_502_500n);
  // The browser's session outlived the process: the cabinet reads the payment succeeded.
  t.like((await readPayment(next.url, browser, started.id)).body, { status: 'succeeded', credited_rub: '750.2500' });
  await assertLedgerInvariants(t, database.db);
});
