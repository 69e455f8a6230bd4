// The pipeline stays legible (issue 33): no function in src/pipeline/ runs over 80 lines. A
// sequencer that grows past that is split by job (chat.ts: resolve and hold, relay, meter and
// settle), not by adding closures to one body.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import ts from 'typescript';

const folder = 'src/pipeline';
const maxLines = 80;

/** Every function-like body in a file, with its name and line count. */
function functionLengths(file: string): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : `(anonymous at line ${start + 1})`;
      found.push({ name, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test(`no function in ${folder}/ is longer than ${maxLines} lines`, (t) => {
  const files = readdirSync(folder).filter((name) => name.endsWith('.ts'));
  t.true(files.length > 10, 'the pipeline files were found');
  const tooLong = files.flatMap((name) => functionLengths(join(folder, name)).filter((fn) => fn.lines > maxLines).map((fn) => `${name}: ${fn.name} (${fn.lines} lines)`));
  t.deepEqual(tooLong, []);
});
