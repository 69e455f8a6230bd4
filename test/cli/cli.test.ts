// The CLI through its binary, as an operator runs it, on both databases.
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { testOnBackends } from '../helpers/backends.js';
import { cliEnv, runCli, runCliJson } from '../helpers/cli.js';
import { startGateway } from '../helpers/gateway.js';

testOnBackends('accounts, keys and balances through the CLI, JSON only on stdout', async (t, database) => {
  const env = cliEnv(database);
  const account = await runCliJson(['accounts', 'create', 'acme'], env);
  t.like(account, { name: 'acme', balance_rub: '0.0000' });
  t.regex(account.id, /^acc_/);
  t.false('webhook_secret' in account, 'the secret is shown by `accounts show` only');

  const duplicate = await runCli(['accounts', 'create', 'acme', '--json'], env);
  t.is(duplicate.exitCode, 1);
  t.is(duplicate.stdout, '');
  t.regex(duplicate.stderr, /already exists/);

  const shown = await runCliJson(['accounts', 'show', 'acme'], env);
  t.is(shown.id, account.id);
  t.regex(shown.webhook_secret, /^whsec_/);
  t.is((await runCliJson(['accounts', 'show', account.id], env)).name, 'acme');
  const accounts = await runCliJson(['accounts', 'ls'], env);
  t.deepEqual({ ...accounts, data: accounts.data.map((a: any) => a.id) }, { object: 'list', data: [account.id], has_more: false });

  const key = await runCliJson(['keys', 'create', '--account', 'acme', '--name', 'web', '--rpm', '120'], env);
  t.regex(key.key, /^gw-[A-Za-z0-9_-]{43}$/);
  t.deepEqual(key.scopes, ['chat', 'search', 'images', 'video', 'music', 'audio', 'embeddings']);
  t.like(key, { account_id: account.id, prefix: 'gw', last4: key.key.slice(-4), name: 'web', rpm: 120 });
  const limited = await runCliJson(['keys', 'create', '--account', account.id, '--scopes', 'images, chat'], env);
  t.deepEqual(limited.scopes, ['chat', 'images']);
  const badScope = await runCli(['keys', 'create', '--account', 'acme', '--scopes', 'chat,admin'], env);
  t.is(badScope.exitCode, 1);
  t.regex(badScope.stderr, /unknown scope "admin"/);

  const listing = await runCli(['keys', 'ls', '--account', 'acme', '--json'], env);
  t.false(listing.stdout.includes(key.key), 'keys ls never shows a secret');
  const keys = JSON.parse(listing.stdout);
  t.like(keys, { object: 'list', has_more: false });
  t.deepEqual(keys.data.map((k: any) => k.id).sort(), [key.id, limited.id].sort());
  const row = await runCli(['keys', 'ls'], env);
  t.regex(row.stdout, new RegExp(`gw-…${key.last4.replace(/[-_]/g, '\\$&')}`));

  const topup = await runCliJson(['balance', 'topup', '--account', 'acme', '--amount', '100.50'], env);
  t.like(topup, { amount_rub: '100.5000', balance_rub: '100.5000', kind: 'topup' });
  t.regex(topup.transaction_id, /^txn_\d+$/);
  const bonus = await runCliJson(['balance', 'topup', '--account', 'acme', '--amount', '0.0001', '--kind', 'bonus', '--note', 'welcome'], env);
  t.is(bonus.balance_rub, '100.5001');
  const badAmount = await runCli(['balance', 'topup', '--account', 'acme', '--amount', '1.00001'], env);
  t.is(badAmount.exitCode, 1);
  t.regex(badAmount.stderr, /up to 4 decimals/);
  t.is((await runCli(['balance', 'topup', '--account', 'acme', '--amount', '0'], env)).exitCode, 1);
  t.deepEqual(await runCliJson(['balance', 'show', '--account', 'acme'], env), {
    account_id: account.id,
    balance_rub: '100.5001',
    held_rub: '0.0000',
    available_rub: '100.5001',
  });
  const history = await runCliJson(['balance', 'history', '--account', 'acme'], env);
  t.like(history, { object: 'list', has_more: false, next_cursor: null });
  t.deepEqual(history.data.map((r: any) => [r.kind, r.amount_rub, r.description]), [
    ['bonus', '0.0001', 'welcome'],
    ['topup', '100.5000', null],
  ]);

  const unknown = await runCli(['balance', 'show', '--account', 'nobody'], env);
  t.is(unknown.exitCode, 1);
  t.regex(unknown.stderr, /no account "nobody"/);
});

testOnBackends('a key revoked with the CLI is refused by the running server on the very next request', async (t, database) => {
  const gateway = await startGateway(t, database);
  const env = cliEnv(database);
  await runCliJson(['accounts', 'create', 'acme'], env);
  await runCliJson(['balance', 'topup', '--account', 'acme', '--amount', '5'], env);
  const { id, key } = await runCliJson(['keys', 'create', '--account', 'acme'], env);
  const history = () => fetch(`${gateway.url}/v1/history`, { headers: { authorization: `Bearer ${key}` } });
  const before = await history();
  t.is(before.status, 200);
  t.is(((await before.json()) as any).data[0].amount_rub, '5.0000', 'GET /v1/history shows the CLI topup');
  const revoked = await runCliJson(['keys', 'revoke', id], env);
  t.truthy(revoked.revoked_at);
  t.is((await history()).status, 401);
});

test('models ls, models check and migrate --status', async (t) => {
  const env = cliEnv();
  const listed = await runCliJson(['models', 'ls'], env);
  t.like(listed, { object: 'list', has_more: false });
  const models = listed.data;
  t.true(models.some((m: any) => m.id === 'sim/chat' && m.enabled));
  t.false(models.some((m: any) => m.id === 'openai/gpt-4o-mini'), 'disabled models are listed with --all only');
  const all = (await runCliJson(['models', 'ls', '--all'], env)).data;
  t.true(all.some((m: any) => m.id === 'openai/gpt-4o-mini' && !m.enabled));
  const check = await runCliJson(['models', 'check'], env);
  t.true(check.ok);
  t.is(check.errors, 0);
  const status = await runCliJson(['migrate', '--status'], env);
  t.deepEqual(status.applied, []);
  // A fresh database: every migration of migrations/ is pending, in order.
  t.deepEqual(status.pending, readdirSync(new URL('../../migrations/', import.meta.url)).filter((file) => file.endsWith('.ts')).map((file) => file.slice(0, -'.ts'.length)).sort());
  await runCliJson(['migrate'], env);
  t.deepEqual((await runCliJson(['migrate', '--status'], env)).pending, []);
});

test('models check refuses a price outside sane bounds or missing; a broken config exits 78 with path and line', async (t) => {
  const env = cliEnv();
  const dir = env.GATEWAY_DATA_DIR!;
  const configPath = path.join(dir, 'prices.yaml');
  writeFileSync(
    configPath,
    [
      'providers:',
      '  sim: { kind: sim }',
      'models:',
      '  - id: sim/chat',
      '    name: Chat',
      '    type: text',
      '    route: { provider: sim, model: chat }',
      '    pricing: { per_1m_input_tokens: "1350000", per_1m_output_tokens: "54.00" }',
      '  - id: sim/image',
      '    name: Image',
      '    type: image',
      '    route: { provider: sim, model: image }',
      '    pricing: {}',
      '',
    ].join('\n'),
  );
  const check = await runCli(['models', 'check', '--config', configPath, '--json'], env);
  t.is(check.exitCode, 1);
  const report = JSON.parse(check.stdout);
  t.is(report.errors, 2);
  t.true(report.problems.some((p: any) => p.model === 'sim/chat' && /sane ceiling/.test(p.message)));
  t.true(report.problems.some((p: any) => p.model === 'sim/image' && /per_image/.test(p.message)));

  const broken = path.join(dir, 'broken.yaml');
  writeFileSync(broken, ['server:', '  port: "eighty"', 'rate_limit:', '  requests_per_minut: 5', ''].join('\n'));
  const result = await runCli(['accounts', 'ls', '--config', broken], env);
  t.is(result.exitCode, 78);
  t.regex(result.stderr, /server\.port: .*\(line 2\)/);
  t.regex(result.stderr, /rate_limit: unknown key\(s\) "requests_per_minut" \(line 4\)/);
});
