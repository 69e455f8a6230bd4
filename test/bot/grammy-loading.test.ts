// grammY is loaded only by a process that runs the bot (DESIGN.md §1; idle memory, issue 37):
// only src/bot/ names the package, and no module outside src/bot/ reaches it through static
// imports — `gateway bot` and `serve --bot` load src/bot/start-bot.ts with import(). The
// cabinet's routes use src/bot/telegram-link.ts, which must stay free of it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { importsOf, repositoryRoot, sourceFiles, sourceRoot } from '../helpers/source-imports.js';

const botFolder = path.join(sourceRoot, 'bot');
const relative = (file: string) => path.relative(repositoryRoot, file);
const files = [...sourceFiles(sourceRoot), ...sourceFiles(path.join(repositoryRoot, 'commands'))];

/** A file's static runtime imports (no import(), no `import type`). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/\bimport\s*\(\s*(['"])[^'"]+\1\s*\)/g, '');
  return importsOf(text)
    .filter((found) => !found.typeOnly)
    .map((found) => found.specifier);
}

/** Whether `file` reaches the grammy package through static imports. */
function reachesGrammy(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  for (const specifier of staticImports(file)) {
    if (specifier === 'grammy' || specifier.startsWith('grammy/')) return true;
    if (!specifier.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
    if (existsSync(target) && reachesGrammy(target, seen)) return true;
  }
  return false;
}

test('only src/bot/ names grammy, and nothing outside it reaches grammy through static imports', (t) => {
  const naming = files.filter((file) => importsOf(readFileSync(file, 'utf8')).some((found) => found.specifier === 'grammy' || found.specifier.startsWith('grammy/')));
  t.true(naming.length > 0);
  t.deepEqual(naming.filter((file) => !file.startsWith(botFolder + path.sep)).map(relative), []);
  t.deepEqual(files.filter((file) => !file.startsWith(botFolder + path.sep) && reachesGrammy(file)).map(relative), []);
  t.false(reachesGrammy(path.join(botFolder, 'telegram-link.ts')));
  t.true(reachesGrammy(path.join(botFolder, 'start-bot.ts')), 'the check can see grammy when it is there');
  t.regex(readFileSync(path.join(repositoryRoot, 'commands', 'serve.ts'), 'utf8'), /await import\('\.\.\/src\/bot\/start-bot\.js'\)/);
});
