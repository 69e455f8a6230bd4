// Where `gateway cabinet link` points its links (issue 30: with `serve --port 9000` it printed
// the configured port). In order:
// 1. cabinet.public_url, when set: the operator said where browsers reach the gateway (a TLS
//    proxy, a public name);
// 2. else the address a `serve` running on this machine recorded once listening
//    (src/process/running-serves.ts; the newest, a wildcard host made loopback): the link then
//    opens where the cabinet really answers;
// 3. else nothing is known: the command prints the link's path and says to set
//    cabinet.public_url, rather than a guess from server.port that may be wrong.
import type { Knex } from 'knex';
import type { Config } from '../config/load.js';
import { reachableUrl, runningServes } from './running-serves.js';

export type LinkOrigin = { readonly origin: string; readonly from: 'public_url' | 'serve' } | { readonly origin: null; readonly from: null };

export async function linkOrigin(db: Knex, config: Config, now: number): Promise<LinkOrigin> {
  if (config.cabinet.publicUrlConfigured) return { origin: config.cabinet.publicUrl, from: 'public_url' };
  const [newest] = await runningServes(db, { now, goneAfterMs: config.holds.ownerGoneAfterMs, hostname: config.instance.hostname });
  return newest ? { origin: reachableUrl(newest.url), from: 'serve' } : { origin: null, from: null };
}
