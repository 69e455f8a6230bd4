// The `stripe` package is loaded only when payments.stripe is configured (DESIGN.md §1: a
// dependency is loaded where it is used): only src/payments/stripe/ names it, every other
// file there only for its types, the adapter with import() inside openStripe, and nothing
// imports the adapter statically — open-payments.ts loads it with import() when configured.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { importsOf, repositoryRoot, sourceFiles, sourceRoot } from '../helpers/source-imports.js';

const stripeFolder = path.join(sourceRoot, 'payments', 'stripe');
const adapter = path.join(stripeFolder, 'stripe-provider.ts');
const relative = (file: string) => path.relative(repositoryRoot, file);

/** Static imports only: `import(…)` is left out (it loads when it runs); `import type` leaves nothing at run time either. */
function staticImportsOf(text: string): string[] {
  const withoutDynamic = text.replace(/\bimport\s*\(\s*(['"])[^'"]+\1\s*\)/g, '');
  return importsOf(withoutDynamic)
    .filter((found) => !found.typeOnly)
    .map((found) => found.specifier);
}

const files = [...sourceFiles(sourceRoot), ...sourceFiles(path.join(repositoryRoot, 'commands'))];

test('only src/payments/stripe/ names the stripe package, and none of it loads the package statically', (t) => {
  const naming = files.filter((file) => importsOf(readFileSync(file, 'utf8')).some((found) => found.specifier === 'stripe'));
  t.true(naming.length > 0);
  t.deepEqual(naming.filter((file) => !file.startsWith(stripeFolder + path.sep)).map(relative), []);
  t.deepEqual(files.filter((file) => staticImportsOf(readFileSync(file, 'utf8')).includes('stripe')).map(relative), []);
  t.regex(readFileSync(adapter, 'utf8'), /export async function openStripe\([^)]*\)[^{]*\{\s*const \{ default: StripeClient \} = await import\('stripe'\);/);
});

test('nothing imports the Stripe adapter statically; open-payments.ts loads it with import()', (t) => {
  const inside = (specifier: string, file: string) => specifier.startsWith('.') && path.resolve(path.dirname(file), specifier).startsWith(stripeFolder + path.sep);
  const staticImporters = files.filter((file) => !file.startsWith(stripeFolder + path.sep) && staticImportsOf(readFileSync(file, 'utf8')).some((specifier) => inside(specifier, file)));
  t.deepEqual(staticImporters.map(relative), []);
  t.regex(readFileSync(path.join(sourceRoot, 'payments', 'open-payments.ts'), 'utf8'), /await import\('\.\/stripe\/stripe-provider\.js'\)/);
});
