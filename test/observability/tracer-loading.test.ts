// Issue 30 item 10: OpenTelemetry is loaded only when traces are on. A default serve must load
// none of its modules: only src/observability/otlp-tracer.ts imports @opentelemetry/*, and
// nothing imports that module statically — tracer.ts loads it with import() when the config has
// observability.otlp (the runtime side: test/e2e/traces.test.ts, the tracer of a default gateway
// is the shared no-op).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { importsOf, repositoryRoot, sourceFiles, sourceRoot } from '../helpers/source-imports.js';

const otlpTracer = path.join(sourceRoot, 'observability', 'otlp-tracer.ts');
const relative = (file: string) => path.relative(repositoryRoot, file);

/** Static imports only: `import(…)` is left out (it loads when it runs). `import type` leaves nothing at run time either. */
function staticImportsOf(text: string): string[] {
  const withoutDynamic = text.replace(/\bimport\s*\(\s*(['"])[^'"]+\1\s*\)/g, '');
  return importsOf(withoutDynamic)
    .filter((found) => !found.typeOnly)
    .map((found) => found.specifier);
}

test('only src/observability/otlp-tracer.ts imports @opentelemetry/*', (t) => {
  const importers = sourceFiles(sourceRoot).filter((file) => importsOf(readFileSync(file, 'utf8')).some((found) => !found.typeOnly && found.specifier.startsWith('@opentelemetry/')));
  t.deepEqual(importers.map(relative), [relative(otlpTracer)]);
});

test('nothing imports otlp-tracer.ts statically; tracer.ts loads it with import()', (t) => {
  const files = [...sourceFiles(sourceRoot), ...sourceFiles(path.join(repositoryRoot, 'commands'))];
  const staticImporters = files.filter((file) =>
    staticImportsOf(readFileSync(file, 'utf8')).some((specifier) => specifier.startsWith('.') && path.resolve(path.dirname(file), specifier) === otlpTracer.replace(/\.ts$/, '.js')),
  );
  t.deepEqual(staticImporters.map(relative), []);
  const tracer = readFileSync(path.join(sourceRoot, 'observability', 'tracer.ts'), 'utf8');
  t.regex(tracer, /await import\('\.\/otlp-tracer\.js'\)/);
});
