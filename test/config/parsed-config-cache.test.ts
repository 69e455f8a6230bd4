// The CLI keeps a configuration file's parsed data between runs (src/config/parsed-config-cache.ts):
// an entry is used only for the very text it was parsed from, anything else is parsed again,
// and what a hit gives — the config, its errors and their lines — is what a parse gives.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { ConfigError, installRoot, loadConfig } from '../../src/config/load.js';

const tmpRoot = mkdtempSync(path.join(os.tmpdir(), 'gateway-config-cache-test-'));
test.after.always(() => rmSync(tmpRoot, { recursive: true, force: true }));

let count = 0;
/** A config file holding `text`, and a cache directory of its own (not made yet). */
function fixture(text: string) {
  const dir = path.join(tmpRoot, String(++count));
  mkdirSync(dir);
  const configPath = path.join(dir, 'gateway.yaml');
  writeFileSync(configPath, text);
  return { cacheDir: path.join(dir, 'cache'), configPath };
}

/** The one entry of a cache directory: its file and its JSON. */
function onlyEntry(cacheDir: string): { file: string; json: any } {
  const files = readdirSync(path.join(cacheDir, 'config'));
  if (files.length !== 1) throw new Error(`expected one entry, found ${files.join(', ')}`);
  const file = path.join(cacheDir, 'config', files[0]!);
  return { file, json: JSON.parse(readFileSync(file, 'utf8')) };
}

const example = readFileSync(path.join(installRoot, 'config', 'gateway.example.yaml'), 'utf8');
const firstModelName = (text: string) => /^ {2}- id: \S+\n {4}name: (.+)$/m.exec(text)![1]!;

test('the shipped example loads the same from its parse and from the entry the parse left', (t) => {
  const { cacheDir, configPath } = fixture(example);
  const parsed = loadConfig({ configPath, env: {} });
  const fromParse = loadConfig({ configPath, env: {}, cacheDir });
  t.truthy(onlyEntry(cacheDir).json, 'the first run left an entry');
  const fromEntry = loadConfig({ configPath, env: {}, cacheDir });
  t.deepEqual(fromParse, parsed);
  t.deepEqual(fromEntry, parsed);
});

test('an entry is used for the text it was made from, and a changed file is parsed again', (t) => {
  const { cacheDir, configPath } = fixture(example);
  loadConfig({ configPath, env: {}, cacheDir });
  const { file, json } = onlyEntry(cacheDir);
  // An entry whose data differs from the file shows which of the two a run used.
  json.raw.models[0].name = 'from the entry';
  writeFileSync(file, JSON.stringify(json));
  t.is(loadConfig({ configPath, env: {}, cacheDir }).models[0]!.name, 'from the entry');

  writeFileSync(configPath, example.replace(`name: ${firstModelName(example)}`, 'name: edited in the file'));
  t.is(loadConfig({ configPath, env: {}, cacheDir }).models[0]!.name, 'edited in the file');
  t.is(onlyEntry(cacheDir).json.raw.models[0].name, 'edited in the file', 'the entry was rewritten from the new text');
});

test('a damaged entry, or one made by another parser, is parsed again and rewritten', (t) => {
  const { cacheDir, configPath } = fixture(example);
  const expected = loadConfig({ configPath, env: {}, cacheDir });
  const { file, json } = onlyEntry(cacheDir);
  writeFileSync(file, '{"maker": "1 yaml 2.9.1", "dig');
  t.deepEqual(loadConfig({ configPath, env: {}, cacheDir }), expected);
  t.deepEqual(onlyEntry(cacheDir).json, json);

  writeFileSync(file, JSON.stringify({ ...json, maker: 'another parser', raw: { ...json.raw, models: [] } }));
  t.deepEqual(loadConfig({ configPath, env: {}, cacheDir }), expected);
  t.deepEqual(onlyEntry(cacheDir).json, json);
});

test("a file's mistakes are reported with the same lines whether its data came from the parse or the entry", (t) => {
  const text = example.replace(/^server:\n/m, 'server:\n  bogus_setting: 1\n');
  const { cacheDir, configPath } = fixture(text);
  const fromParse = t.throws(() => loadConfig({ configPath, env: {}, cacheDir }), { instanceOf: ConfigError });
  onlyEntry(cacheDir); // the data parsed, so it was kept although the schema refused it
  const fromEntry = t.throws(() => loadConfig({ configPath, env: {}, cacheDir }), { instanceOf: ConfigError });
  t.deepEqual(fromEntry?.problems, fromParse?.problems);
  t.regex(fromEntry?.problems.join('\n') ?? '', /server: unknown key\(s\) "bogus_setting" \(line \d+\)/);
});

test('a YAML syntax error leaves no entry; data JSON would not carry unchanged is not kept', (t) => {
  const broken = fixture('server: [unclosed\n');
  t.throws(() => loadConfig({ configPath: broken.configPath, env: {}, cacheDir: broken.cacheDir }), { instanceOf: ConfigError });
  t.throws(() => readdirSync(path.join(broken.cacheDir, 'config')));

  // .inf is a number YAML has and JSON has not (it would come back as null).
  const infinite = fixture(example.replace(/^server:\n/m, 'server:\n  bogus_setting: .inf\n'));
  t.throws(() => loadConfig({ configPath: infinite.configPath, env: {}, cacheDir: infinite.cacheDir }), { instanceOf: ConfigError });
  t.throws(() => readdirSync(path.join(infinite.cacheDir, 'config')));
});

test('a cache directory that cannot be written is no error: the file is parsed', (t) => {
  const { configPath } = fixture(example);
  // A file where the cache directory would be.
  t.deepEqual(loadConfig({ configPath, env: {}, cacheDir: configPath }), loadConfig({ configPath, env: {} }));
});
