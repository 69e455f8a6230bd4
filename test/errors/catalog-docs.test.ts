// docs/errors.md lists every code of the catalog (src/errors/catalog.ts) and nothing else, each
// row saying what the catalog says. Codes are typed, so every code the gateway throws is in the
// catalog; this keeps the documentation in step with it. On a failure the message carries the
// table as it should read: paste it between the markers.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { errorCatalog } from '../../src/errors/catalog.js';
import { catalogTable } from './catalog-table.js';

const docPath = path.resolve(import.meta.dirname, '../../docs/errors.md');
const start = '<!-- catalog table: test/errors/catalog-docs.test.ts keeps it equal to src/errors/catalog.ts -->';
const end = '<!-- end of catalog table -->';

function documentedTable(): string {
  const text = readFileSync(docPath, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/errors.md has no catalog table between "${start}" and "${end}"`);
  return text.slice(from + start.length, to).trim();
}

const codesOf = (table: string) => [...table.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]!);

test('docs/errors.md documents exactly the codes of the catalog', (t) => {
  const documented = codesOf(documentedTable());
  const catalog = Object.keys(errorCatalog);
  t.deepEqual(catalog.filter((code) => !documented.includes(code)), [], 'codes of the catalog missing from docs/errors.md');
  t.deepEqual(documented.filter((code) => !catalog.includes(code)), [], 'codes in docs/errors.md the catalog lacks');
  t.is(new Set(documented).size, documented.length, 'a code documented twice');
});

test('each documented row says what the catalog says (status, types, retry, where, when)', (t) => {
  t.is(documentedTable(), catalogTable(), `docs/errors.md should read:\n\n${catalogTable()}\n`);
});

test('the check can fail: a dropped row and an invented code are both seen', (t) => {
  const table = catalogTable();
  const lines = table.split('\n');
  const dropped = lines.filter((line) => !line.startsWith('| `not_found` |')).join('\n');
  t.false(codesOf(dropped).includes('not_found'));
  const invented = `${table}\n| \`no_such_code\` | 400 | x | x | — | HTTP | x |`;
  t.true(codesOf(invented).includes('no_such_code'));
  t.is(codesOf(table).length, Object.keys(errorCatalog).length);
});
