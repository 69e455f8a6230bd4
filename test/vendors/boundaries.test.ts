// What keeps "adding a vendor = one folder + one registry line" true (docs/development.md,
// "Adding a vendor"): vendors are pure + HTTP (they import the model, each other and the HTTP
// client libraries, never Koa, knex, keyv, the pipeline, the job runner or the HTTP shell),
// and the rest of src/ reaches vendors only through the registry, the contracts and the
// shared transports, never into a vendor's folder. Checked by reading every import specifier.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { importsOf, repositoryRoot as root, resolveRelative, sourceFiles, sourceRoot as src } from '../helpers/source-imports.js';

const vendors = path.join(src, 'vendors');

/** src/-relative path of a relative specifier, without its extension; the package name otherwise. */
function targetOf(file: string, specifier: string): string {
  const resolved = resolveRelative(file, specifier);
  if (resolved === undefined) {
    if (specifier.startsWith('node:')) return 'node:';
    // A scoped package is its scope and name (`@smithy/core/serde` → `@smithy/core`).
    return specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
  }
  return path.relative(src, resolved).replace(/\.js$/, '').split(path.sep).join('/');
}

// zod: a vendor's provider settings are declared as zod fields (Vendor.providerSettings).
// @smithy/signature-v4: AWS's SigV4 signer (bedrock/signing.ts); @smithy/core: its event-stream
// codec and UTF-8 helpers (shared/aws-event-stream.ts) — the pieces of the AWS SDK that are pure
// codecs, so Bedrock goes through the shared transport like every other vendor.
const allowedPackages = new Set(['node:', 'undici', 'eventsource-parser', 'zod', '@smithy/signature-v4', '@smithy/core']);

/** Why `target` may not be imported from a vendor file, or undefined when it may. */
function vendorImportRefused(target: string, typeOnly: boolean): string | undefined {
  if (allowedPackages.has(target)) return undefined;
  if (target.startsWith('vendors/') || target.startsWith('model/') || target.startsWith('util/')) return undefined;
  // createUpstreams reads the provider settings the config loaded; the type only.
  if (target === 'config/load' && typeOnly) return undefined;
  return 'outside what a vendor may use';
}

/** What the rest of src/ may import from src/vendors/: the registry, the contracts, the transports. */
function reachesIntoAVendor(target: string): boolean {
  if (!target.startsWith('vendors/')) return false;
  const inside = target.slice('vendors/'.length);
  return !['registry', 'types', 'media-types', 'job-types', 'usage-types', 'vendor', 'upstreams'].includes(inside) && !inside.startsWith('shared/');
}

test('the scanner sees each form of import, type-only ones as such', (t) => {
  const text = [
    "import { request } from 'undici';",
    "import type { ProviderConfig } from '../config/load.js';",
    "import { type Upstream, createDispatcher } from './shared/http-transport.js';",
    "export { providerKinds } from '../vendors/registry.js';",
    "import 'koa';",
    "const lazy = await import('../pipeline/chat.js');",
  ].join('\n');
  const file = path.join(vendors, 'upstreams.ts');
  t.deepEqual(importsOf(text).map(({ specifier, typeOnly }) => [targetOf(file, specifier), typeOnly]), [
    ['undici', false],
    ['config/load', true],
    ['vendors/shared/http-transport', false],
    ['vendors/registry', false],
    ['koa', false],
    ['pipeline/chat', false],
  ]);
  t.is(vendorImportRefused('koa', false), 'outside what a vendor may use');
  t.is(vendorImportRefused('pipeline/chat', false), 'outside what a vendor may use');
  t.is(vendorImportRefused('config/load', false), 'outside what a vendor may use');
  t.true(reachesIntoAVendor('vendors/openai/chat'));
  t.false(reachesIntoAVendor('vendors/shared/media-transport'));
});

test('vendors import only the model, utilities, each other and the HTTP client libraries', (t) => {
  const files = sourceFiles(vendors);
  t.true(files.length > 40, `only ${files.length} files found under src/vendors/`);
  const offenders = files.flatMap((file) =>
    importsOf(readFileSync(file, 'utf8')).flatMap(({ specifier, typeOnly }) => {
      const reason = vendorImportRefused(targetOf(file, specifier), typeOnly);
      return reason ? [`${path.relative(root, file)} → ${specifier}: ${reason}`] : [];
    }),
  );
  t.deepEqual(offenders, []);
});

test('nothing outside src/vendors/ reaches into a vendor\'s folder: callers go through the registry', (t) => {
  const files = sourceFiles(src).filter((file) => !file.startsWith(vendors + path.sep));
  t.true(files.length > 100, `only ${files.length} files found under src/`);
  const offenders = files.flatMap((file) =>
    importsOf(readFileSync(file, 'utf8'))
      .map(({ specifier }) => targetOf(file, specifier))
      .filter(reachesIntoAVendor)
      .map((target) => `${path.relative(root, file)} → ${target}`),
  );
  t.deepEqual(offenders, []);
});
