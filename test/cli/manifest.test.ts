// The CLI starts from oclif.manifest.json (scripts/build-manifest.mjs, run by `npm run build`):
// without it oclif imported every command module, and most of the gateway with them, on every
// invocation (`gateway --version` took 0.6–0.8 s on the 2-core VM, 0.18 s with it). The
// manifest must describe the built commands exactly, or the CLI would parse stale flags.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { execa } from 'execa';
import { buildManifest } from '../../scripts/build-manifest.mjs';

const root = path.resolve(import.meta.dirname, '../..');

test('the build writes oclif.manifest.json describing the built commands, and the binary starts from it', async (t) => {
  const written = JSON.parse(readFileSync(path.join(root, 'oclif.manifest.json'), 'utf8'));
  t.deepEqual(written, JSON.parse(JSON.stringify(await buildManifest())), 'regenerated from dist/commands, it is the same');
  t.true(Object.keys(written.commands).includes('keys:create'));
  const started = await execa('node', [path.join(root, 'bin', 'gateway'), '--version'], { env: { DEBUG: 'oclif:config:gateway' }, reject: false });
  t.is(started.exitCode, 0, started.stderr);
  t.regex(started.stderr, /using manifest from .*oclif\.manifest\.json/);
});
