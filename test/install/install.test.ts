// install.sh as a new operator runs it (with --no-serve), twice: the first run creates one
// account and one key and prints the key, with commands that reach that install's database;
// the second creates nothing.
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { execa } from 'execa';
import { installRoot } from '../../src/config/load.js';
import { countRun } from '../helpers/backends.js';
import { runCliJson } from '../helpers/cli.js';

test('install.sh --no-serve is idempotent: one account, one key printed once', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-install-'));
  const env = { GATEWAY_CONFIG: path.join(dir, 'config', 'gateway.yaml'), GATEWAY_DATA_DIR: path.join(dir, 'data'), GATEWAY_LOG_LEVEL: 'warn' };
  const first = await execa(path.join(installRoot, 'install.sh'), ['--no-serve'], { env, extendEnv: true, all: true });
  const printed = /\n\s+(gw-[A-Za-z0-9_-]{43})\n/.exec(first.stdout);
  t.truthy(printed, `the first run prints a key:\n${first.all}`);
  t.true(existsSync(env.GATEWAY_CONFIG), 'the config is written from the example');
  t.is(readFileSync(env.GATEWAY_CONFIG, 'utf8'), readFileSync(path.join(installRoot, 'config', 'gateway.example.yaml'), 'utf8'));
  t.true(existsSync(path.join(env.GATEWAY_DATA_DIR, 'gateway.db')), 'the SQLite database is under the data dir');

  const second = await execa(path.join(installRoot, 'install.sh'), ['--no-serve'], { env, extendEnv: true, all: true });
  t.notRegex(second.all!, /gw-[A-Za-z0-9_-]{43}/, 'the second run prints no key');
  t.regex(second.all!, /accounts already exist/);

  const accounts = (await runCliJson(['accounts', 'ls'], env)).data;
  t.is(accounts.length, 1);
  t.is(accounts[0].name, 'default');
  const keys = (await runCliJson(['keys', 'ls'], env)).data;
  t.is(keys.length, 1);
  t.is(keys[0].last4, printed![1]!.slice(-4));
  t.deepEqual(keys[0].scopes, ['chat', 'search', 'images', 'video', 'music', 'audio', 'embeddings']);
  t.false(readFileSync(path.join(env.GATEWAY_DATA_DIR, 'gateway.db')).includes(printed![1]!), 'the key itself is not stored');

  // The top-up it suggests, run as printed from a shell without this run's variables, reaches
  // this install's database: it names the data directory and config the run used (it did not,
  // and in /opt/gateway under the systemd guide `./bin/gateway` opened ./data instead).
  const topup = /Give the account money to spend: +(.+)\n/.exec(first.stdout)![1]!;
  t.is(topup, `GATEWAY_DATA_DIR=${env.GATEWAY_DATA_DIR} GATEWAY_CONFIG=${env.GATEWAY_CONFIG} ./bin/gateway balance topup --account default --amount 1000`);
  const shellEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_'))) as Record<string, string>;
  await execa('bash', ['-c', topup], { cwd: installRoot, env: shellEnv, extendEnv: false });
  t.is((await runCliJson(['balance', 'show', '--account', 'default'], env)).balance_rub, '1000.0000');
  t.regex(second.stderr, /\n==> done \(--no-serve\): start with GATEWAY_DATA_DIR=\S+ GATEWAY_CONFIG=\S+ \.\/bin\/gateway serve\n?$/);
  countRun('sqlite');
});

test('install.sh keeps GATEWAY_DATABASE_URL in the commands it prints, so they reach the same database', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-install-url-'));
  mkdirSync(path.join(dir, 'elsewhere'));
  const databaseUrl = `sqlite:${path.join(dir, 'elsewhere', 'gw.db')}`;
  const env = { GATEWAY_CONFIG: path.join(dir, 'config', 'gateway.yaml'), GATEWAY_DATA_DIR: path.join(dir, 'data'), GATEWAY_DATABASE_URL: databaseUrl, GATEWAY_LOG_LEVEL: 'warn' };
  const run = await execa(path.join(installRoot, 'install.sh'), ['--no-serve'], { env, extendEnv: true, all: true });
  t.false(existsSync(path.join(env.GATEWAY_DATA_DIR, 'gateway.db')), 'the database is where the URL says, not in the data dir');

  const topup = /Give the account money to spend: +(.+)\n/.exec(run.stdout)![1]!;
  t.is(topup, `GATEWAY_DATABASE_URL=${databaseUrl} GATEWAY_DATA_DIR=${env.GATEWAY_DATA_DIR} GATEWAY_CONFIG=${env.GATEWAY_CONFIG} ./bin/gateway balance topup --account default --amount 1000`);
  t.regex(run.stderr, new RegExp(`\\n==> done \\(--no-serve\\): start with GATEWAY_DATABASE_URL=${databaseUrl.replace(/[.]/g, '\\.')} GATEWAY_DATA_DIR=\\S+ GATEWAY_CONFIG=\\S+ \\./bin/gateway serve\\n?$`));
  // Copied into a shell without this run's variables, the top-up reaches the install's database.
  const shellEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_'))) as Record<string, string>;
  const copied = await execa('bash', ['-c', topup], { cwd: installRoot, env: shellEnv, extendEnv: false, reject: false, all: true });
  t.is(copied.exitCode, 0, copied.all);
  t.is((await runCliJson(['balance', 'show', '--account', 'default'], env)).balance_rub, '1000.0000');
  countRun('sqlite');
});

test('install.sh --help prints its header comment and nothing else', async (t) => {
  const help = await execa(path.join(installRoot, 'install.sh'), ['--help']);
  t.is(
    help.stdout,
    [
      'gateway installer: idempotent, safe to re-run.',
      '  ./install.sh             install, create the first account and key (first run only), then serve',
      '  ./install.sh --no-serve  same, but stop before serving (provisioning scripts)',
      'Environment: GATEWAY_CONFIG, GATEWAY_DATA_DIR, GATEWAY_DATABASE_URL, … as for `gateway` itself;',
      'GATEWAY_FIRST_ACCOUNT names the first account (default "default").',
    ].join('\n'),
  );
  t.is(help.exitCode, 0);
});
