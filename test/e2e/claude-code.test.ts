// Issue 34: Claude Code, in its default setup, answers through the gateway on a model that does
// not reason (sim/chat: output limit 8192, below the 32000 max_tokens Claude Code sends) and on
// one that does (sim/reasoning). Its defaults on the wire: max_tokens 32000, thinking adaptive,
// output_config.effort "high", context_management, metadata.user_id, anthropic-beta headers,
// `?beta=true` on the path, and 25 tools (the simulator calls them, so subagents run too).
//
// Claude Code is not a dependency of the project (a ~250 MB native binary). Install it outside
// the repository (`npm i @anthropic-ai/claude-code` in a scratch folder) and point
// GATEWAY_TEST_CLAUDE_CODE at its `claude` executable (node_modules/.bin/claude); without it the
// test is listed as skipped, saying so. Nothing leaves loopback: non-essential traffic is off.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { execa } from 'execa';
import { createTestDatabase } from '../helpers/backends.js';
import { startChatGateway } from '../helpers/chat-gateway.js';

const claude = process.env.GATEWAY_TEST_CLAUDE_CODE;
const title = 'Claude Code in print mode answers through the gateway on a model that does not reason and on one that does, and is charged';

if (!claude || !existsSync(claude)) {
  if (claude) console.warn(`!!! GATEWAY_TEST_CLAUDE_CODE=${claude} does not exist`);
  test.skip(`${title} (SKIPPED: GATEWAY_TEST_CLAUDE_CODE is not set to the claude executable of @anthropic-ai/claude-code)`, () => {});
} else {
  test(title, async (t) => {
    const database = await createTestDatabase('sqlite');
    t.teardown(() => database.drop());
    const gateway = await startChatGateway(t, database);
    const { key } = await gateway.newClient({ balanceUnits: 100_000_000n });
    const home = mkdtempSync(path.join(tmpdir(), 'claude-code-home-'));
    for (const model of ['sim/chat', 'sim/reasoning']) {
      // Only what a user sets: the base address and the key (and a scratch HOME for its settings).
      const run = await execa(claude, ['-p', 'say hi', '--model', model], {
        cwd: home,
        extendEnv: false,
        env: { PATH: process.env.PATH ?? '', HOME: home, ANTHROPIC_BASE_URL: gateway.url, ANTHROPIC_API_KEY: key, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
        stdin: 'ignore',
        reject: false,
      });
      t.is(run.exitCode, 0, `${model}: ${run.stdout.slice(0, 500)} ${run.stderr.slice(0, 500)}`);
      t.not(run.stdout.trim(), '', `${model} answered`);
      t.false(/API Error/.test(run.stdout), `${model}: ${run.stdout.slice(0, 500)}`);
    }
    const history = (await (await fetch(`${gateway.url}/v1/history?limit=200`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { kind: string; model: string }[] };
    const charged = new Set(history.data.filter((row) => row.kind === 'charge').map((row) => row.model));
    t.deepEqual([...charged].sort(), ['sim/chat', 'sim/reasoning']);
  });
}
