// The CLI renders the error catalog (src/errors/catalog.ts, docs/errors.md): a known error is
// one line, `error: <its own message>`, or with --json `{"error":{"code","message"}}` on stderr,
// nothing on stdout; exit 78 for the configuration, 1 for the rest. Through the real binary.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { cliEnv, runCli } from '../helpers/cli.js';

test('known errors print their catalog code with --json and one line without; the configuration exits 78', async (t) => {
  const env = cliEnv();
  t.is((await runCli(['migrate', '--json'], env)).exitCode, 0);
  t.is((await runCli(['accounts', 'create', 'acme', '--json'], env)).exitCode, 0);

  const expectations: [string[], string, string][] = [
    [['accounts', 'create', 'acme'], 'account_exists', 'an account named "acme" already exists'],
    [['balance', 'show', '--account', 'nobody'], 'not_found', 'no account "nobody"'],
    [['balance', 'topup', '--account', 'acme', '--amount', '1.00001'], 'invalid_amount', ''],
    [['keys', 'create', '--account', 'acme', '--scopes', 'chat,admin'], 'invalid_argument', ''],
    // Before the catalog a cursor the ledger did not hand out printed a stack.
    [['balance', 'history', '--account', 'acme', '--cursor', 'bogus'], 'validation_error', 'the cursor is not one this endpoint returned'],
  ];
  for (const [args, code, message] of expectations) {
    const json = await runCli([...args, '--json'], env);
    t.is(json.exitCode, 1, args.join(' '));
    t.is(json.stdout, '', args.join(' '));
    const parsed = JSON.parse(json.stderr) as { error: { code: string; message: string } };
    t.deepEqual(Object.keys(parsed.error), ['code', 'message']);
    t.is(parsed.error.code, code, args.join(' '));
    if (message) t.is(parsed.error.message, message);

    const text = await runCli(args, env);
    t.is(text.exitCode, 1, args.join(' '));
    t.is(text.stderr, `error: ${parsed.error.message}`, `${args.join(' ')}: one line, no stack`);
  }

  const broken = path.join(mkdtempSync(path.join(tmpdir(), 'gw-cli-errors-')), 'broken.yaml');
  writeFileSync(broken, ['server:', '  port: "eighty"', ''].join('\n'));
  const config = await runCli(['accounts', 'ls', '--config', broken, '--json'], env);
  t.is(config.exitCode, 78);
  t.is((JSON.parse(config.stderr) as { error: { code: string } }).error.code, 'config_invalid');
});
