// The HTTP shell is the outermost layer (DESIGN.md §4, issue 15): it imports the pipeline and
// the services, nothing under src/ outside src/http/ imports it. Checked by reading every
// module's import specifiers (static, re-exports, dynamic) and resolving the relative ones.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';

const root = path.resolve(import.meta.dirname, '../..');
const src = path.join(root, 'src');
const http = path.join(src, 'http');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every module specifier of a file: `import … from`, `export … from`, `import '…'`, `import('…')`. */
export function specifiers(text: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm;
  for (const match of text.matchAll(pattern)) found.push(match[2]!);
  return found;
}

/** The files of src/http/ that `file` imports (relative specifiers, resolved). */
function httpImports(file: string, text: string): string[] {
  return specifiers(text)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.resolve(path.dirname(file), specifier))
    .filter((target) => target === http || target.startsWith(http + path.sep))
    .map((target) => path.relative(root, target));
}

test('the scanner sees every form of import, and resolves relative paths', (t) => {
  const text = [
    "import { ApiError } from '../http/errors.js';",
    "import type { Context } from '../http/state.js';",
    "export { createApp } from '../http/app.js';",
    "import '../http/side-effect.js';",
    "const lazy = await import('../http/lazy.js');",
    "import { retryAfterMs } from '../http-transport.js';",
  ].join('\n');
  t.deepEqual(specifiers(text), ['../http/errors.js', '../http/state.js', '../http/app.js', '../http/side-effect.js', '../http/lazy.js', '../http-transport.js']);
  // src/providers/http-transport.ts is not src/http/: the name alone must not count.
  t.deepEqual(httpImports(path.join(src, 'pipeline', 'chat.ts'), text), [
    path.join('src', 'http', 'errors.js'),
    path.join('src', 'http', 'state.js'),
    path.join('src', 'http', 'app.js'),
    path.join('src', 'http', 'side-effect.js'),
    path.join('src', 'http', 'lazy.js'),
  ]);
  t.deepEqual(httpImports(path.join(src, 'providers', 'media', 'transport.ts'), "import { retryAfterMs } from '../http-transport.js';"), []);
  t.deepEqual(httpImports(path.join(src, 'providers', 'media', 'transport.ts'), "import { ApiError } from '../../http/errors.js';"), [path.join('src', 'http', 'errors.js')]);
});

test('no file under src/ outside src/http/ imports src/http/', (t) => {
  const files = sourceFiles(src).filter((file) => !file.startsWith(http + path.sep));
  t.true(files.length > 100, `only ${files.length} files found under src/`);
  const offenders = files.flatMap((file) => httpImports(file, readFileSync(file, 'utf8')).map((target) => `${path.relative(root, file)} → ${target}`));
  t.deepEqual(offenders, []);
});

test('src/http/ itself is scanned the same way (the check would see its own imports)', (t) => {
  const app = path.join(http, 'app.ts');
  t.true(httpImports(app, readFileSync(app, 'utf8')).includes(path.join('src', 'http', 'route-table.js')));
});
