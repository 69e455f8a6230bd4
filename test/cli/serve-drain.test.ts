// SIGTERM drains within server.drain_timeout: a `gateway serve` process stops accepting, lets
// in-flight requests finish until the deadline, then cuts what is left through the normal
// client-disconnect path (upstream aborted, what was streamed charged, the rest of the hold
// released) and exits. Before, one slow stream kept a stopping serve alive 57 s (upstream
// timeouts default to 10 min) and the hold stayed until the sweeper.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { exampleConfigPath } from '../helpers/gateway.js';
import { createClient, processEnv, startProcess } from '../helpers/processes.js';

function writeConfig(server: Record<string, unknown>): string {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gw-drain-')), 'gateway.yaml');
  writeFileSync(file, stringify({ ...raw, server: { ...raw.server, ...server } }));
  return file;
}

/** Streams a chat completion; resolves `firstContent` once some text has arrived, `done` with all that arrived when the stream ends (or is cut). */
function streamChat(url: string, key: string, prompt: string) {
  let text = '';
  let markFirst: () => void = () => undefined;
  const firstContent = new Promise<void>((resolve) => (markFirst = resolve));
  const done = (async () => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim/chat', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: prompt }] }),
    });
    if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) {
        text += decoder.decode(chunk, { stream: true });
        if (/"content":"[^"]+"/.test(text)) markFirst();
      }
    } catch {
      // the connection was cut: what arrived is the answer
    }
    return text;
  })();
  return { firstContent, done };
}

testOnBackends('SIGTERM with a very slow stream in flight: the finishing stream completes, the slow one is cut at server.drain_timeout and charged for what it streamed, nothing stays held, serve exits 0', async (t, database) => {
  t.timeout(120_000);
  const config = writeConfig({ drain_timeout: '2s' });
  const serve = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0'], processEnv(config, database));
  t.teardown(() => serve.kill().catch(() => undefined));
  const client = await createClient(database, 100_000_000n);

  // ~200 s of stream (one chunk a second): only the deadline can end it.
  const slow = streamChat(serve.url, client.key, 'Tell me a long story [[sim:tokens=200]] [[sim:delay=1000]]');
  await slow.firstContent;
  // A quick one in flight at the same moment: 6 chunks 100 ms apart, well inside the deadline.
  const quick = streamChat(serve.url, client.key, 'Tell me a short one [[sim:tokens=6]] [[sim:delay=100]]');
  await quick.firstContent;

  serve.child.kill('SIGTERM');
  const exit = await serve.child;
  t.is(exit.exitCode, 0);
  const quickText = await quick.done;
  t.true(quickText.trimEnd().endsWith('data: [DONE]'), `the in-flight request finished normally: ${quickText.slice(-200)}`);
  const slowText = await slow.done;
  t.false(slowText.includes('[DONE]'), 'the slow stream was cut');

  t.is(BigInt((await database.db('accounts').where({ id: client.accountId }).first()).held_units), 0n, 'nothing is held');
  const holds = await database.db('holds').where({ account_id: client.accountId }).orderBy('created_at');
  t.deepEqual(
    holds.map((hold) => hold.status),
    ['settled', 'settled'],
  );
  const usage = await database.db('usage_records').where({ account_id: client.accountId });
  t.deepEqual(usage.map((record) => record.status).sort(), ['aborted', 'completed'], 'both requests are in the usage records (flushed before exit)');
  const cut = usage.find((record) => record.status === 'aborted');
  t.truthy(cut, JSON.stringify(usage));
  t.true(Number(cut.output_tokens) > 0 && Number(cut.output_tokens) < 200, `the cut stream is metered for what it produced: ${cut.output_tokens} tokens`);
  t.true(Number(cut.cost_units) > 0);
  const charges = await database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' });
  t.is(charges.length, 2);
  t.true(
    charges.some((charge) => -BigInt(charge.amount_units) === BigInt(cut.cost_units)),
    'the charge of the cut stream is its metered cost',
  );
  await assertLedgerInvariants(t, database.db);
});
