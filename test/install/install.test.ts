// install.sh as a new operator runs it (with --no-serve), twice: the first run creates one
// account and one key and prints the key, with commands that reach that install's database;
// the second creates nothing.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
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
