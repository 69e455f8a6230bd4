// The reference docs stay readable as references: docs/http-api.md has no line a reader must
// scroll sideways through, docs/cli.md keeps its tables to short cells (long text goes under the
// command's heading), and docs/cli.md has a `### gateway <command>` heading for every command
// under commands/ (and none for a command that is gone). Pure: reads files only.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { installRoot } from '../../src/config/load.js';

const longest = 300;
const read = (file: string) => readFileSync(path.join(installRoot, file), 'utf8');

/** oclif's command ids as typed: commands/keys/create.ts → "keys create"; a file beside a folder of the same name is a command too (reconcile). */
function commandIds(folder = path.join(installRoot, 'commands'), prefix: string[] = []): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return commandIds(path.join(folder, entry.name), [...prefix, entry.name]);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [[...prefix, entry.name.slice(0, -3)].join(' ')] : [];
  });
}

/** The cells of a Markdown table row, split on the pipes that are not escaped. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

test('docs/http-api.md has no line over 300 characters', (t) => {
  const long = read('docs/http-api.md')
    .split('\n')
    .flatMap((line, index) => (line.length > longest ? [`line ${index + 1}: ${line.length} characters: ${line.slice(0, 60)}…`] : []));
  t.deepEqual(long, [], 'split these into lists or paragraphs');
});

test('docs/cli.md has no table cell over 300 characters', (t) => {
  const long = read('docs/cli.md')
    .split('\n')
    .flatMap((line, index) =>
      line.trimStart().startsWith('|')
        ? cells(line)
            .filter((cell) => cell.length > longest)
            .map((cell) => `line ${index + 1}: a cell of ${cell.length} characters: ${cell.slice(0, 60)}…`)
        : [],
    );
  t.deepEqual(long, [], 'move long cells into prose or bullets under the command heading');
});

test('docs/cli.md has a "### gateway <command>" heading for every command under commands/, and none for a command that does not exist', (t) => {
  const commands = commandIds().sort();
  t.true(commands.includes('keys create') && commands.includes('reconcile') && commands.includes('reconcile payments'), `commands found: ${commands.join(', ')}`);
  const headings = [...read('docs/cli.md').matchAll(/^### gateway (.+?)\s*$/gm)].map((match) => match[1]!);
  t.deepEqual(
    commands.filter((command) => !headings.includes(command)),
    [],
    'commands without a heading in docs/cli.md',
  );
  t.deepEqual(
    headings.filter((heading) => !commands.includes(heading)),
    [],
    'headings in docs/cli.md for commands that commands/ does not have',
  );
  t.is(new Set(headings).size, headings.length, 'a command has two headings');
});
