// A PostgreSQL outage, cut and restored through a loopback TCP proxy in front of the server:
// requests during the cut get 503 + Retry-After in their dialect's error shape; streams in
// flight when it happens complete to the client and their charges land after the restore,
// exactly, with their usage records; every request-log row lands; the first request after the
// restore succeeds (no restart); balance == sum(ledger).
import { assertLedgerInvariants, countRun, createTestDatabase, needing, pgUrl } from '../helpers/backends.js';
import { expectedChargeUnits, startChatGateway } from '../helpers/chat-gateway.js';
import { eventually } from '../helpers/eventually.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const pgTest = needing('postgres');

pgTest('PostgreSQL cut mid-stream: 503 + Retry-After meanwhile, streams complete, their charges and every record land after the restore', async (t) => {
  t.timeout(120_000);
  const database = await createTestDatabase('postgres');
  t.teardown(() => database.drop());
  const proxy = await startTcpProxy(Number(new URL(pgUrl!).port || 5432));
  t.teardown(() => proxy.close());
  const proxied = new URL(database.url);
  proxied.port = String(proxy.port);
  const gateway = await startChatGateway(t, { ...database, url: proxied.toString() });
  const { key, accountId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const requestIds: string[] = [];
  const chat = async (content: string, path = '/v1/chat/completions') => {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'sim/chat', max_tokens: 200, messages: [{ role: 'user', content }] }),
    });
    requestIds.push(response.headers.get('x-request-id')!);
    return { status: response.status, headers: response.headers, body: await response.json() };
  };
  t.is((await chat('warm up')).status, 200);

  // Three streams in flight (3 s each), then the cut.
  const streams = await Promise.all(
    [0, 1, 2].map(async (index) => {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'sim/chat',
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: `stream ${index} [[sim:tokens=60]] [[sim:delay=50]]` }],
        }),
      });
      t.is(response.status, 200);
      requestIds.push(response.headers.get('x-request-id')!);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = decoder.decode((await reader.read()).value, { stream: true });
      return {
        requestId: response.headers.get('x-request-id')!,
        done: (async () => {
          for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
          return text;
        })(),
      };
    }),
  );
  proxy.cut();

  // While it is down: 503, Retry-After, the dialect's shape, retry advised.
  for (let index = 0; index < 5; index++) {
    const refused = await chat(`during the cut ${index}`);
    t.is(refused.status, 503);
    t.is(refused.headers.get('retry-after'), '2');
    t.is(refused.headers.get('x-should-retry'), 'true');
    t.like(refused.body, { error: { type: 'server_error', code: 'database_unavailable' } });
  }
  const anthropic = await chat('during the cut, anthropic', '/v1/messages');
  t.is(anthropic.status, 503);
  t.is(anthropic.headers.get('retry-after'), '2');
  t.like(anthropic.body, { type: 'error', error: { type: 'api_error' } });

  // The streams end while the database is still down: the client gets everything.
  const bodies = await Promise.all(streams.map((stream) => stream.done));
  const usages = bodies.map((body) => {
    t.true(body.trimEnd().endsWith('data: [DONE]'), 'the stream completed');
    const usageLine = body.split('\n').reverse().find((line) => line.includes('"usage":{'))!;
    const usage = JSON.parse(usageLine.slice('data: '.length)).usage;
    return { input: usage.prompt_tokens, cached: usage.prompt_tokens_details?.cached_tokens ?? 0, output: usage.completion_tokens };
  });
  // The 3 streams' settles, and a release kept for each of the 6 refused requests' holds: a
  // hold statement cut mid-way may have committed with its answer lost (a no-op here, where
  // the proxy refused the connection before anything ran).
  t.is(gateway.services.settles.size, 3 + 6, 'their settles (and the refused holds\' releases) wait for the database');
  t.is(Number((await database.db('holds').where({ account_id: accountId, status: 'active' }).count({ n: '*' }).first())?.n), 3);

  proxy.restore();
  // No restart: the first request after the restore is served.
  t.is((await chat('after the restore')).status, 200);
  await eventually(() => gateway.services.settles.size === 0, { what: 'the pending settles landed' });
  for (const [index, stream] of streams.entries()) {
    const hold = await database.db('holds').where({ request_id: stream.requestId }).first();
    t.is(hold.status, 'settled');
    const charges = await database.db('ledger_transactions').where({ hold_id: hold.id, kind: 'charge' });
    t.is(charges.length, 1, 'charged once');
    t.is(-BigInt(charges[0].amount_units), expectedChargeUnits(usages[index]!), 'the exact charge of what was streamed');
  }
  // Every record landed: one request-log row per request, a usage record per chat that ran.
  // Awaited until as many rows as requests are there; then compared exactly (a row written
  // twice, or another one's, shows in the comparison instead of as a wait that never ends).
  const countOf = async (table: string) => Number((await database.db(table).count({ n: '*' }).first())?.n);
  await eventually(async () => (await countOf('request_log')) >= requestIds.length, { what: `${requestIds.length} request-log rows landed`, intervalMs: 50 });
  t.deepEqual((await database.db('request_log').select('request_id')).map((row: { request_id: string }) => row.request_id).sort(), [...requestIds].sort());
  const ran = 1 + streams.length + 1; // warm-up, the streams, the request after the restore
  await eventually(async () => (await countOf('usage_records')) >= ran, { what: `${ran} usage records landed`, intervalMs: 50 });
  t.is(await countOf('usage_records'), ran);
  for (const [index, stream] of streams.entries()) {
    const record = await database.db('usage_records').where({ request_id: stream.requestId }).first();
    t.is(BigInt(record.cost_units), expectedChargeUnits(usages[index]!));
    t.is(record.status, 'completed');
  }
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  t.regex(metrics, /gateway_pending_settles 0/);
  t.regex(metrics, /gateway_records_dropped_total\{table="request_log"\} 0\n/);
  t.regex(metrics, /gateway_records_dropped_total\{table="usage_records"\} 0\n/);
  t.regex(metrics, /gateway_settles_dropped_total 0\n/);
  t.is(Number((await database.db('holds').where({ account_id: accountId, status: 'active' }).count({ n: '*' }).first())?.n), 0);
  await assertLedgerInvariants(t, database.db);
  countRun('postgres');
});
