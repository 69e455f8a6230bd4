// deploy/gateway.yaml is its own first sections (server, data_dir, database, cache, storage for
// the compose stack) followed by config/gateway.example.yaml from "# --- API keys" on. This
// copies that part of the example in again, after the example's catalog or prices changed:
//   node scripts/sync-deploy-config.mjs
// test/deploy/compose.test.ts fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';

export const catalogMarker = '# --- API keys';

/** The text from the marker line on (the example's keys, limits, providers and catalog). */
export function fromMarker(text, file) {
  const at = text.indexOf(`\n${catalogMarker}`);
  if (at < 0) throw new Error(`${file}: no line starting with "${catalogMarker}"`);
  return text.slice(at + 1);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = new URL('../', import.meta.url);
  const example = readFileSync(new URL('config/gateway.example.yaml', root), 'utf8');
  const deployUrl = new URL('deploy/gateway.yaml', root);
  const deploy = readFileSync(deployUrl, 'utf8');
  const head = deploy.slice(0, deploy.length - fromMarker(deploy, 'deploy/gateway.yaml').length);
  writeFileSync(deployUrl, head + fromMarker(example, 'config/gateway.example.yaml'));
  console.log('deploy/gateway.yaml: catalog copied from config/gateway.example.yaml');
}
