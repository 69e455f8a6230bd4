// The operator's money and account commands through the real binary (issue 18): balance adjust
// and refund, accounts disable and enable, and audit ls — JSON on stdout, refusals as catalog
// errors on stderr with exit 1 and nothing written, every change in the audit log with the CLI
// user as its actor.
import { hostname, userInfo } from 'node:os';
import { Accounts } from '../../src/accounts/accounts.js';
import { Ledger } from '../../src/billing/ledger.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { cliEnv, runCli, runCliJson } from '../helpers/cli.js';

testOnBackends('balance adjust and refund, accounts disable and enable, audit ls through the CLI', async (t, database) => {
  t.timeout(170_000);
  const env = cliEnv(database);
  const actor = `cli:${userInfo().username}@${hostname()}`;
  // Each CLI run is a process start (seconds on a loaded machine): the setup is done in-process.
  const account = await new Accounts(database.db).create('acme');
  const ledger = new Ledger(database.db);
  await ledger.credit(account.id, 1_000_000n, 'topup');
  // A running request holds 30 RUB: a correction may not take it.
  const running = await ledger.hold(account.id, 300_000n, { ttlMs: 600_000, requestId: 'req_running' });

  const added = await runCliJson(['balance', 'adjust', '--account', 'acme', '--amount', '2.5', '--reason', 'goodwill'], env);
  t.like(added, { account_id: account.id, kind: 'adjustment', amount_rub: '2.5000', balance_rub: '102.5000', reason: 'goodwill' });
  const refused = await runCli(['balance', 'adjust', '--account', 'acme', '--amount', '-72.5001', '--reason', 'too much', '--json'], env);
  t.is(refused.exitCode, 1);
  t.is(refused.stdout, '');
  t.deepEqual(JSON.parse(refused.stderr), {
    error: { code: 'adjustment_refused', message: `refused: an adjustment of -72.5001 RUB would take more than the 72.5000 RUB available to ${account.id} (the balance minus what running requests hold); nothing was written` },
  });
  const taken = await runCliJson(['balance', 'adjust', '--account', 'acme', '--amount', '-72.5', '--reason', 'double topup'], env);
  t.like(taken, { amount_rub: '-72.5000', balance_rub: '30.0000' });
  t.like(await ledger.balance(account.id), { balanceUnits: 300_000n, heldUnits: 300_000n, availableUnits: 0n });

  // The running request settles 12.3456 RUB; its charge is refunded once.
  await ledger.settle(running.id, 123_456n);
  const refund = await runCliJson(['balance', 'refund', '--request-id', 'req_running', '--reason', 'bad answer'], env);
  t.like(refund, { account_id: account.id, kind: 'refund', amount_rub: '12.3456', balance_rub: '30.0000', request_id: 'req_running', job_id: null, reason: 'bad answer' });
  const twice = await runCli(['balance', 'refund', '--request-id', 'req_running', '--json'], env);
  t.is(twice.exitCode, 1);
  t.deepEqual(JSON.parse(twice.stderr), { error: { code: 'already_refunded', message: 'the charge of "req_running" was already refunded; nothing was written' } });

  const disabled = await runCliJson(['accounts', 'disable', 'acme', '--reason', 'unpaid invoice'], env);
  t.like(disabled, { id: account.id, state: 'disabled', disabled_reason: 'unpaid invoice', changed: true });
  t.like(await runCliJson(['accounts', 'enable', account.id], env), { state: 'enabled', disabled_at: null, changed: true });

  const audit = await runCliJson(['audit', 'ls', '--account', 'acme'], env);
  t.is(audit.object, 'list');
  t.false(audit.has_more);
  t.deepEqual(
    audit.data.map((entry: any) => [entry.actor, entry.action, entry.target, entry.details.reason]),
    [
      [actor, 'account.enable', account.id, null],
      [actor, 'account.disable', account.id, 'unpaid invoice'],
      [actor, 'balance.refund', 'req_running', 'bad answer'],
      [actor, 'balance.adjust', account.id, 'double topup'],
      [actor, 'balance.adjust', account.id, 'goodwill'],
    ],
  );
  const adjustments = await runCliJson(['audit', 'ls', '--action', 'balance.adjust', '--limit', '1'], env);
  t.is(adjustments.data[0].details.reason, 'double topup');
  t.true(adjustments.has_more);

  // Usage: the charge (refunds are not subtracted), by account, as JSON and as CSV.
  const usage = await runCliJson(['usage', '--since', '2000-01-01', '--by', 'account'], env);
  t.like(usage, { object: 'list', has_more: false, by: 'account', since: '2000-01-01T00:00:00.000Z', totals: { requests: 1, media_requests: 1, charged_rub: '12.3456' } });
  t.deepEqual(usage.data, [{ account: account.id, requests: 1, input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, media_requests: 1, images: 0, characters: 0, audio_seconds: 0, video_seconds: 0, charged_rub: '12.3456' }]);
  const csv = await runCli(['usage', '--since', '2000-01-01', '--by', 'model', '--csv'], env);
  t.is(csv.exitCode, 0);
  t.is(csv.stdout, 'model,requests,input_tokens,cached_input_tokens,output_tokens,reasoning_tokens,media_requests,images,characters,audio_seconds,video_seconds,charged_rub\r\n,1,0,0,0,0,1,0,0,0,0,12.3456');
  await assertLedgerInvariants(t, database.db);
});
