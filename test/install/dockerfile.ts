// The Dockerfile as data, for the two tests of the container image: the static check in
// `npm test` (test/install/image-static.test.ts) and the full replay, a command of its own
// (`npm run test:image`, test/install/image-replay.slow.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { installRoot } from '../../src/config/load.js';

export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

export interface Stage {
  readonly name: string;
  readonly from: string;
  readonly instructions: Instruction[];
}

/** Instructions by stage; continuation lines joined, comments dropped. */
export function readDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = index + 1;
    let logical = lines[index]!.trim();
    if (logical === '' || logical.startsWith('#')) continue;
    while (logical.endsWith('\\')) logical = `${logical.slice(0, -1).trimEnd()} ${lines[++index]!.trim()}`;
    const [, keyword, args] = /^(\S+)\s+(.*)$/.exec(logical)!;
    if (keyword === 'FROM') {
      const [, from, name] = /^(\S+)\s+AS\s+(\S+)$/i.exec(args!) ?? [];
      if (!from || !name) throw new Error(`Dockerfile line ${line}: every stage is named (FROM image AS name)`);
      stages.push({ name, from, instructions: [] });
    } else stages.at(-1)!.instructions.push({ keyword: keyword!, args: args!, line });
  }
  return stages;
}

/** .dockerignore's lines (plain names, folders and `*` within a name: all it uses). */
export function ignoredByDockerignore(relativePath: string): boolean {
  const patterns = readFileSync(path.join(installRoot, '.dockerignore'), 'utf8')
    .split('\n')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && !entry.startsWith('#'));
  return patterns.some((pattern) => {
    const expression = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`);
    return expression.test(relativePath) || (!pattern.includes('/') && expression.test(path.basename(relativePath)));
  });
}

/** The RUN lines that set up the system (packages, the user, the volume's owner): not replayed. */
export const systemLines = [
  /^apt-get update && apt-get install -y --no-install-recommends python3 make g\+\+ && rm -rf \/var\/lib\/apt\/lists\/\*$/,
  /^groupadd --system --gid 10001 gateway && useradd --system --uid 10001 --gid gateway --home-dir \/var\/lib\/gateway --shell \/usr\/sbin\/nologin gateway$/,
  // 0700: the data directory is the gateway user's alone (issue 30; src/db/private-files.ts).
  /^mkdir -p \/var\/lib\/gateway && chown gateway:gateway \/var\/lib\/gateway && chmod 0700 \/var\/lib\/gateway$/,
];

/** Development-only packages that must not reach the runtime image's node_modules. */
export const devOnly = ['typescript', 'ava', 'tsx', 'openai', '@anthropic-ai/sdk', 'execa', 's3rver', 'autocannon', 'esbuild', 'preact', 'playwright-core', 'axe-core'];

/** The repository's Dockerfile, read into stages. */
export function repositoryDockerfile(): Stage[] {
  return readDockerfile(readFileSync(path.join(installRoot, 'Dockerfile'), 'utf8'));
}
