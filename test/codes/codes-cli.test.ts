// `gateway codes create / ls / disable` through the real binary (`npm run build` first), on both
// databases: create prints a CSV of N lines with N unique codes (the notice on stderr, so the
// CSV can be redirected as it is), one of them is redeemed over HTTP by a customer of a gateway
// over the same database, the lists show it redeemed without showing any code, disabling a code
// and a batch refuses them from then on; JSON shapes, refusals, and the CLI user in the audit log.
import { hostname, userInfo } from 'node:os';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { cliEnv, runCli, runCliJson } from '../helpers/cli.js';
import { startGateway } from '../helpers/gateway.js';
import { balanceOf, codesConfig, newCustomer, redeem } from './codes-helpers.js';

const codePattern = /^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){4}$/;

testOnBackends('codes create prints N CSV lines of unique codes, one is redeemed over HTTP; codes ls shows it redeemed without any code; codes disable refuses a code and a batch; audited as the CLI user', async (t, database) => {
  t.timeout(170_000);
  const env = cliEnv(database);
  const actor = `cli:${userInfo().username}@${hostname()}`;

  const created = await runCli(['codes', 'create', '--amount', '500', '--count', '5', '--expires', '30d', '--note', 'cli batch'], env);
  t.is(created.exitCode, 0, created.stderr);
  const [header, ...lines] = created.stdout.split('\n');
  t.is(header, 'code,amount_rub,uses,expires_at,batch_id');
  t.is(lines.length, 5);
  const rows = lines.map((line) => line.split(','));
  const codes = rows.map((row) => row[0]!);
  for (const code of codes) t.regex(code, codePattern);
  t.is(new Set(codes).size, 5, 'five different codes');
  const batchId = rows[0]![4]!;
  t.regex(batchId, /^cbat_[2-7a-z]+$/);
  for (const row of rows) t.deepEqual(row.slice(1), ['500.0000', '1', rows[0]![3]!, batchId]);
  t.regex(created.stderr, new RegExp(`^5 codes of 500\\.0000 RUB in batch ${batchId}, each for 1 account; they work until \\d{4}-\\d{2}-\\d{2}T[^\\n]+\\.\\nThis is the only time the codes are shown: keep the CSV\\.$`));

  // A customer redeems one of the printed codes in the cabinet.
  const gateway = await startGateway(t, database, { raw: codesConfig() });
  const customer = await newCustomer(gateway.services);
  const redeemed = await redeem(gateway.url, customer, { code: codes[2] });
  t.is(redeemed.status, 200, JSON.stringify(redeemed.body));
  t.deepEqual({ ...redeemed.body, transaction_id: 'txn' }, { amount_rub: '500.0000', balance_rub: '500.0000', transaction_id: 'txn', batch_note: 'cli batch' });

  const batches = await runCliJson(['codes', 'ls'], env);
  t.deepEqual(batches.data.map((batch: any) => [batch.id, batch.amount_rub, batch.uses_per_code, batch.count, batch.redeemed, batch.expires_at, batch.disabled_at, batch.note, batch.created_by]), [
    [batchId, '500.0000', 1, 5, 1, rows[0]![3], null, 'cli batch', actor],
  ]);
  t.is(Date.parse(batches.data[0].expires_at) - Date.parse(batches.data[0].created_at), 30 * 86_400_000);
  const listed = await runCliJson(['codes', 'ls', '--batch', batchId], env);
  t.is(listed.object, 'list');
  t.deepEqual(listed.data.map((code: any) => code.hint).sort(), codes.map((code) => code.slice(-4)).sort());
  const used = listed.data.find((code: any) => code.hint === codes[2]!.slice(-4));
  t.like(used, { uses_left: 0, redemptions: 1, disabled_at: null });
  const text = await runCli(['codes', 'ls', '--batch', batchId], env);
  t.is(text.exitCode, 0);
  t.regex(text.stdout, new RegExp(`^${batchId}: 5 codes of 500\\.0000 RUB, 1 use each, 1 redeemed; expires \\d{4}-`));
  t.true(text.stdout.includes(`…-${codes[0]!.slice(-4)}`));
  for (const output of [JSON.stringify(batches), JSON.stringify(listed), text.stdout]) for (const code of codes) t.false(output.includes(code), 'a list never shows a code');

  // Disabling one code, then the whole batch.
  const other = listed.data.find((code: any) => code.hint === codes[0]!.slice(-4));
  const disabledCode = await runCliJson(['codes', 'disable', other.id], env);
  t.deepEqual({ ...disabledCode, disabled_at: 'set' }, { ...other, disabled_at: 'set' });
  t.is((await redeem(gateway.url, customer, { code: codes[0] })).body.error.code, 'code_invalid');
  const second = await newCustomer(gateway.services);
  t.is((await redeem(gateway.url, second, { code: codes[1] })).status, 200, 'the others of the batch still work');
  const disabledBatch = await runCli(['codes', 'disable', batchId], env);
  t.is(disabledBatch.exitCode, 0);
  t.regex(disabledBatch.stdout, new RegExp(`^batch ${batchId} \\(5 codes of 500\\.0000 RUB\\) is disabled since \\d{4}-`));
  t.is((await redeem(gateway.url, second, { code: codes[3] })).body.error.code, 'code_invalid');
  t.is(await balanceOf(gateway.services, customer.accountId), 5_000_000n);
  t.is(await balanceOf(gateway.services, second.accountId), 5_000_000n);

  // JSON of create: the batch and its codes; defaults: one code, one use, no end.
  const json = await runCliJson(['codes', 'create', '--amount', '1.5', '--uses', '3'], env);
  t.deepEqual(Object.keys(json), ['batch', 'codes']);
  t.like(json.batch, { amount_rub: '1.5000', uses_per_code: 3, count: 1, redeemed: 0, expires_at: null, disabled_at: null, note: null, created_by: actor });
  t.is(json.codes.length, 1);
  t.regex(json.codes[0], codePattern);

  // Refusals: the catalog's codes, nothing on stdout.
  const refusal = async (args: string[], code: string) => {
    const result = await runCli([...args, '--json'], env);
    t.is(result.exitCode, 1, args.join(' '));
    t.is(result.stdout, '');
    t.is(JSON.parse(result.stderr).error.code, code, args.join(' '));
  };
  await refusal(['codes', 'create', '--amount', 'lots'], 'invalid_amount');
  await refusal(['codes', 'create', '--amount', '5', '--expires', 'soon'], 'invalid_argument');
  await refusal(['codes', 'disable', 'cbat_nothing'], 'not_found');

  const audit = await database.db('audit_log').where('action', 'like', 'code%').orderBy('id');
  t.deepEqual(audit.map((row: any) => [row.action, row.actor]), [
    ['code_batch.create', actor],
    ['code.redeem', `user:${customer.userId}`],
    ['code.disable', actor],
    ['code.redeem', `user:${second.userId}`],
    ['code_batch.disable', actor],
    ['code_batch.create', actor],
  ]);
  await assertLedgerInvariants(t, database.db);
});
