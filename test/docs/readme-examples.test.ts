// The README's first-call files are complete programs: each is taken from the README as it is
// written, run with node against a real gateway (the shipped example catalog, its simulator),
// and its output checked. A README edit that breaks a copy-paste first call fails here.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { installRoot } from '../../src/config/load.js';
import { createTestDatabase } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

const run = promisify(execFile);
const readme = readFileSync(path.join(installRoot, 'README.md'), 'utf8');

/** The ```js block that follows the line naming `fileName`. */
function fileFromReadme(fileName: string): string {
  const at = readme.indexOf(`\`${fileName}\``);
  if (at < 0) throw new Error(`the README no longer names ${fileName}`);
  const block = /```js\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block) throw new Error(`no js block follows ${fileName} in the README`);
  return block[1]!;
}

async function runFromReadme(fileName: string, gatewayUrl: string, key: string): Promise<string> {
  // Inside the repository, so that `import 'openai'` resolves to the project's node_modules.
  const folder = mkdtempSync(path.join(installRoot, '.readme-example-'));
  try {
    const file = path.join(folder, fileName);
    writeFileSync(file, fileFromReadme(fileName).replaceAll('http://127.0.0.1:8080', gatewayUrl));
    const { stdout } = await run(process.execPath, [file], { env: { ...process.env, KEY: key }, timeout: 60_000 });
    return stdout;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

test('the README first-call files run as written: OpenAI chat and a streamed Anthropic message with thinking', async (t) => {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const gateway = await startGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });

  // The simulator's answer is a function of the prompt, so the whole output is known.
  const answer = 'Simulated answer to "Hello!": load predictable so while to simulated plain with';
  t.is(
    await runFromReadme('first-openai.mjs', gateway.url, key),
    `${answer}\n{\n  prompt_tokens: 5,\n  completion_tokens: 20,\n  total_tokens: 25,\n` +
      '  prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },\n  completion_tokens_details: { reasoning_tokens: 0 }\n}\n',
  );
  t.is(await runFromReadme('first-anthropic.mjs', gateway.url, key), `${answer}\n [ 'thinking', 'text' ]\n`);

  const history = await gateway.services.db('ledger_transactions').where({ kind: 'charge' }).count<{ n: number }[]>({ n: '*' });
  t.is(Number(history[0]!.n), 2);
});
