// The HTTP shell is the outermost layer (DESIGN.md §4, issue 15): it imports the pipeline and
// the services, nothing under src/ outside src/http/ imports it. Checked by reading every
// module's import specifiers (static, re-exports, dynamic) and resolving the relative ones.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { importsOf, repositoryRoot as root, resolveRelative, sourceFiles, sourceRoot as src } from '../helpers/source-imports.js';

const http = path.join(src, 'http');

const specifiers = (text: string): string[] => importsOf(text).map((found) => found.specifier);

/** The files of src/http/ that `file` imports (relative specifiers, resolved). */
function httpImports(file: string, text: string): string[] {
  return specifiers(text)
    .flatMap((specifier) => resolveRelative(file, specifier) ?? [])
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
