// The configuration file's parsed data, kept between runs of the CLI. Parsing the YAML is the
// largest single cost of a command's start: the shipped 80 KB catalog takes the yaml parser,
// cold in every new process, about a third of `gateway accounts ls`'s CPU. What it yields
// depends on the text (and the parser) alone, so a file whose text is unchanged is read back
// from a JSON copy instead, in milliseconds; the schema still checks it on every run.
//
// One entry per configuration file (named by a digest of its path, so an operator's cache holds
// as many entries as config files used), in the CLI's cache directory (oclif's cacheDir:
// $GATEWAY_CACHE_DIR, else $XDG_CACHE_HOME/gateway, else ~/.cache/gateway). An entry is used
// only when it was made from the same text by the same yaml version in this format; anything
// else (a changed file, an upgrade, a damaged or foreign entry) is a miss, parsed again and
// rewritten. A cache that cannot be read or written is a miss, never an error.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

/** What an entry was made by: a change to either makes every entry a miss. */
const maker = `1 yaml ${(createRequire(import.meta.url)('yaml/package.json') as { version: string }).version}`;

interface Entry {
  maker: string;
  digest: string;
  raw: unknown;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function entryFile(cacheDir: string, configPath: string): string {
  return path.join(cacheDir, 'config', `${sha256(configPath).slice(0, 32)}.json`);
}

/** The data parsed earlier from exactly this text of `configPath`, or undefined. */
export function cachedParse(cacheDir: string, configPath: string, text: string): { raw: unknown } | undefined {
  let entry: Partial<Entry>;
  try {
    entry = JSON.parse(readFileSync(entryFile(cacheDir, configPath), 'utf8')) as Partial<Entry>;
  } catch {
    return undefined;
  }
  if (entry === null || typeof entry !== 'object' || entry.maker !== maker || entry.digest !== sha256(text) || !('raw' in entry)) return undefined;
  return { raw: entry.raw };
}

/**
 * Keeps what `text` parsed to. Only data JSON carries unchanged is kept (a YAML `.inf`, for
 * one, would come back as null), so a hit is always what the parser gave.
 */
export function keepParse(cacheDir: string, configPath: string, text: string, raw: unknown): void {
  const json = JSON.stringify({ maker, digest: sha256(text), raw } satisfies Entry);
  if (!isDeepStrictEqual((JSON.parse(json) as Entry).raw, raw)) return;
  const file = entryFile(cacheDir, configPath);
  const partial = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Written aside and renamed: a CLI run beside this one reads the old entry or the new, whole.
    writeFileSync(partial, json, { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    // A read-only home, a full disk: the next run parses again.
  }
}
