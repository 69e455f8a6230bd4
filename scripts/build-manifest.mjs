#!/usr/bin/env node
// Writes oclif.manifest.json (every command's id, flags, arguments and file), run by `npm run
// build` after tsc. Without it oclif imports every command module on every invocation to learn
// their flags — and with them most of the gateway (serve, the HTTP routes, the web cabinet) —
// before it runs the one command asked for: about 450 of the project's modules for
// `gateway models ls`. With it, oclif reads this file and imports only that command.
// The manifest belongs to the build: it is regenerated with dist/ and not kept in git
// (test/cli/manifest.test.ts checks it matches the built commands).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Plugin } from '@oclif/core';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** The manifest of the built commands, as oclif makes it when there is none. */
export async function buildManifest() {
  const plugin = new Plugin({ root, type: 'core', isRoot: true, ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true });
  await plugin.load();
  return plugin.manifest;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const manifest = await buildManifest();
  writeFileSync(path.join(root, 'oclif.manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`oclif.manifest.json: ${Object.keys(manifest.commands).length} commands`);
}
