// Issue 18 item 4: an upstream failure shows up in the log (one warn line with provider, route,
// model, upstream status, the vendor's message without secrets, attempt and fallback) and in
// /metrics (errors by provider, model and status; latency; time to first token), and the access
// line of the failed request names the model and the provider. Also the other metrics of the
// item: tokens by kind, RUB charged, refusals, the job and hold backlog at scrape time.
// Log and metrics are not storage: one backend, except the backlog query (SQL) on both.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { createTestDatabase, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { expectedChargeUnits, startChatGateway, testPrices } from '../helpers/chat-gateway.js';
import { testClock } from '../helpers/clock.js';
import { capturedLogger, startGateway } from '../helpers/gateway.js';
import { api, fastJobsConfig } from '../helpers/jobs.js';
import { eventually } from '../helpers/eventually.js';
import { redactSecrets } from '../../src/pipeline/upstream-observer.js';
import { startSimulator } from '../../src/sim/server.js';

const chatModel = (id: string, extra: Record<string, unknown>) => ({ id, name: id, type: 'text', pricing: testPrices, capabilities: { max_output_tokens: 4096 }, ...extra });

async function sqlite(t: ExecutionContext): Promise<TestDatabase> {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  return database;
}

async function chat(gateway: { url: string }, key: string, model: string, content: string, stream = false, extra: Record<string, unknown> = {}) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...extra, model, stream, ...(stream ? { stream_options: { include_usage: true } } : {}), messages: [{ role: 'user', content }] }),
  });
  return { status: response.status, requestId: response.headers.get('x-request-id')!, text: await response.text() };
}

const metricsOf = async (gateway: { url: string }) => (await fetch(`${gateway.url}/metrics`)).text();

/** The value of one series, exactly as named (labels in the order prom-client writes them). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test('an upstream 500 on chat: a warn line with provider, route, model, status, message, attempt and no fallback; the access line names model and provider; /metrics counts it', async (t) => {
  const { logger, lines } = capturedLogger('info');
  const gateway = await startChatGateway(t, await sqlite(t), { logger });
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const failed = await chat(gateway, key, 'openai/chat', 'hello [[sim:status=500]]');
  t.is(failed.status, 502);

  const failures = lines.filter((line) => line.msg === 'upstream failed');
  t.is(failures.length, 1);
  const { time: _time, pid: _pid, hostname: _hostname, ...failure } = failures[0]!;
  t.deepEqual(failure, {
    level: 40,
    msg: 'upstream failed',
    request_id: failed.requestId,
    operation: 'chat',
    provider: 'openai',
    route: 'openai:chat',
    model: 'openai/chat',
    upstream_status: '500',
    upstream_type: 'server_error',
    upstream_message: 'Simulated internal server error',
    attempt: 1,
    fallback: null,
  });
  const access = lines.find((line) => line.msg === 'request' && line.request_id === failed.requestId)!;
  t.like(access, { level: 30, status: 502, model: 'openai/chat', provider: 'openai', charged_units: 0 });

  const metrics = await metricsOf(gateway);
  t.is(sample(metrics, 'gateway_upstream_errors_total{provider="openai",model="openai/chat",status="500"}'), 1);
  t.is(sample(metrics, 'gateway_upstream_duration_seconds_count{provider="openai",model="openai/chat"}'), 1);
  t.is(sample(metrics, 'gateway_upstream_ttft_seconds_count{provider="openai",model="openai/chat"}'), undefined, 'no token came');
});

test('a connection failure falls back: the line names connect_error and the route taken next, and the request is served by it', async (t) => {
  const { logger, lines } = capturedLogger('warn');
  // An upstream that drops every connection as it comes. (A fixed port nothing listened on was
  // in the ephemeral range: once in a full run another test's server got it and served the
  // request, and no failure was logged.)
  const dead = createServer().on('connection', (socket) => socket.destroy());
  await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => dead.close(() => resolve())));
  const deadPort = (dead.address() as AddressInfo).port;
  const gateway = await startChatGateway(t, await sqlite(t), {
    logger,
    providers: { dead: { kind: 'openai', base_url: `http://127.0.0.1:${deadPort}/v1` } },
    models: [chatModel('t/fallback', { routes: [{ provider: 'dead', model: 'chat', weight: 1000 }, { provider: 'compat', model: 'chat', weight: 0 }] })],
  });
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const served = await chat(gateway, key, 't/fallback', 'hello', true);
  t.is(served.status, 200);
  const failures = lines.filter((line) => line.msg === 'upstream failed');
  t.is(failures.length, 1);
  t.like(failures[0], { request_id: served.requestId, provider: 'dead', route: 'dead:chat', model: 't/fallback', upstream_status: 'connect_error', attempt: 1, fallback: 'compat:chat' });
  t.regex(failures[0]!.upstream_message, /^upstream "dead" connection failed: /);

  const metrics = await metricsOf(gateway);
  t.is(sample(metrics, 'gateway_upstream_errors_total{provider="dead",model="t/fallback",status="connect_error"}'), 1);
  t.is(sample(metrics, 'gateway_upstream_duration_seconds_count{provider="dead",model="t/fallback"}'), 1);
  t.is(sample(metrics, 'gateway_upstream_duration_seconds_count{provider="compat",model="t/fallback"}'), 1);
  t.is(sample(metrics, 'gateway_upstream_ttft_seconds_count{provider="compat",model="t/fallback"}'), 1, 'the stream that served it had a first token');
});

test('two transient failures in a row: each route logged with its attempt and the fallback taken', async (t) => {
  const { logger, lines } = capturedLogger('warn');
  const gateway = await startChatGateway(t, await sqlite(t), {
    logger,
    models: [chatModel('t/two', { routes: [{ provider: 'openai', model: 'chat', weight: 1000 }, { provider: 'anthropic', model: 'chat', weight: 0 }] })],
  });
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const failed = await chat(gateway, key, 't/two', 'x [[sim:status=503]]');
  t.is(failed.status, 502);
  t.deepEqual(
    lines.filter((line) => line.msg === 'upstream failed').map((line) => [line.route, line.upstream_status, line.attempt, line.fallback]),
    [
      ['openai:chat', '503', 1, 'anthropic:chat'],
      ['anthropic:chat', '503', 2, null],
    ],
  );
  const metrics = await metricsOf(gateway);
  t.is(sample(metrics, 'gateway_upstream_errors_total{provider="openai",model="t/two",status="503"}'), 1);
  t.is(sample(metrics, 'gateway_upstream_errors_total{provider="anthropic",model="t/two",status="503"}'), 1);
});

test('an upstream timeout: status timeout in the line and in /metrics, a 504 to the client', async (t) => {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const { logger, lines } = capturedLogger('info');
  const gateway = await startChatGateway(t, await sqlite(t), {
    logger,
    providers: { slow: { kind: 'openai-compatible', base_url: `${simulator.url}/v1`, timeout: '200ms' } },
    models: [chatModel('t/slow', { route: { provider: 'slow', model: 'chat' } })],
  });
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const failed = await chat(gateway, key, 't/slow', 'hello [[sim:ttfb=3000]]');
  t.is(failed.status, 504);
  const failure = lines.find((line) => line.msg === 'upstream failed')!;
  t.like(failure, { level: 40, request_id: failed.requestId, provider: 'slow', route: 'slow:chat', model: 't/slow', upstream_status: 'timeout', upstream_type: 'timeout', upstream_message: 'upstream "slow" timed out', attempt: 1, fallback: null });
  t.like(lines.find((line) => line.msg === 'request')!, { status: 504, model: 't/slow', provider: 'slow' });
  t.is(sample(await metricsOf(gateway), 'gateway_upstream_errors_total{provider="slow",model="t/slow",status="timeout"}'), 1);
});

test('an upstream that echoes its key in the error: the key reaches neither the log nor the client', async (t) => {
  const secret = 'sk-proj-Secret0123456789abcdef';
  const upstream = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `Internal error for key ${secret} (header Authorization: Bearer ${secret}; api_key=${secret})`, type: 'server_error' } }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
  const { logger, lines } = capturedLogger('info');
  const gateway = await startChatGateway(t, await sqlite(t), {
    logger,
    env: { LEAKY_KEY: secret },
    providers: { leaky: { kind: 'openai', base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`, api_key_env: 'LEAKY_KEY' } },
    models: [chatModel('t/leaky', { route: { provider: 'leaky', model: 'chat' } })],
  });
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const failed = await chat(gateway, key, 't/leaky', 'hello');
  t.is(failed.status, 502);
  const failure = lines.find((line) => line.msg === 'upstream failed')!;
  t.is(failure.upstream_message, 'Internal error for key [redacted] (header Authorization: Bearer [redacted]; api_key=[redacted])');
  t.is(failure.upstream_status, '500');
  t.false(JSON.stringify(lines).includes(secret), 'no line carries the key');
  t.false(JSON.stringify(lines).includes('Secret0123'), 'nor a part of it');
  // The client is told the vendor's message too, without the key.
  t.is(JSON.parse(failed.text).error.message, 'The upstream failed: Internal error for key [redacted] (header Authorization: Bearer [redacted]; api_key=[redacted])');
});

test('redactSecrets: configured keys, Bearer, sk-, key=value; shortened', (t) => {
  t.is(redactSecrets('token abcd1234efgh here', ['abcd1234efgh']), 'token [redacted] here');
  t.is(redactSecrets('Authorization: Bearer eyJhbGciOi.x.y', []), 'Authorization: Bearer [redacted]');
  t.is(redactSecrets('bad key sk-ant-api03-xyz_ABC', []), 'bad key sk-[redacted]');
  t.is(redactSecrets('url ?key=AIzaSyA1234567890abcdefghij&x=1', []), 'url ?key=[redacted]&x=1');
  t.is(redactSecrets('{"api_key": "abc123"}', []), '{"api_key": "[redacted]"}');
  t.is(redactSecrets('x'.repeat(400), []), `${'x'.repeat(300)}…`);
});

test('a media upstream failure: logged with the operation, counted, and the access line names model and provider', async (t) => {
  const { logger, lines } = capturedLogger('info');
  const gateway = await startGateway(t, await sqlite(t), { logger });
  const { key } = await gateway.newClient({ balanceUnits: 100_000_000n });
  const failed = await api(gateway, key, 'POST', '/v1/images/generations', { model: 'sim/image', prompt: 'a cat [[sim:status=503]]' });
  t.is(failed.status, 502);
  const failure = lines.find((line) => line.msg === 'upstream failed')!;
  t.like(failure, { level: 40, operation: 'generateImages', provider: 'sim', route: 'sim:image', model: 'sim/image', upstream_status: '503', upstream_message: 'Simulated service unavailable', attempt: 1, fallback: null });
  t.like(lines.find((line) => line.msg === 'request')!, { status: 502, model: 'sim/image', provider: 'sim' });
  t.is(sample(await metricsOf(gateway), 'gateway_upstream_errors_total{provider="sim",model="sim/image",status="503"}'), 1);
});

test('a job submit the upstream refuses: logged as job_submit with the job id; the job fails', async (t) => {
  const { logger, lines } = capturedLogger('warn');
  const gateway = await startGateway(t, await sqlite(t), { raw: fastJobsConfig(), jobRunner: true, logger });
  const { key } = await gateway.newClient({ balanceUnits: 100_000_000n });
  const created = await api(gateway, key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'refused [[sim:status=400]]', seconds: 4 });
  t.is(created.status, 200, JSON.stringify(created.body));
  await eventually(() => lines.some((line) => line.msg === 'upstream failed'), { what: 'the submit failure logged' });
  const failure = lines.find((line) => line.msg === 'upstream failed')!;
  t.like(failure, { level: 40, job_id: created.body.id, operation: 'job_submit', provider: 'sim', route: 'sim:video', model: 'sim/video', upstream_status: '400', attempt: 1, fallback: null });
  t.is(sample(await metricsOf(gateway), 'gateway_upstream_errors_total{provider="sim",model="sim/video",status="400"}'), 1);
  await eventually(async () => (await api(gateway, key, 'GET', `/v1/videos/${created.body.id}`)).body.status === 'failed', { what: 'the job failed' });
});

test('tokens by kind, money in units and RUB, time to first token, and rate-limit refusals', async (t) => {
  const gateway = await startChatGateway(t, await sqlite(t));
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n, rpm: 2 });
  const replies = [
    await chat(gateway, key, 'openai/reasoning', 'hello [[sim:tokens=7]]', false, { reasoning_effort: 'high' }),
    await chat(gateway, key, 'openai/reasoning', 'again, longer [[sim:tokens=30]]', true, { reasoning_effort: 'low' }),
  ];
  t.deepEqual(replies.map((reply) => reply.status), [200, 200]);
  t.is((await chat(gateway, key, 'openai/reasoning', 'one too many')).status, 429);
  const usages = [
    JSON.parse(replies[0]!.text).usage,
    JSON.parse(replies[1]!.text.split('\n').reverse().find((line) => line.includes('"usage":{'))!.slice('data: '.length)).usage,
  ] as { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number }; completion_tokens_details?: { reasoning_tokens: number } }[];
  const total = (of: (usage: (typeof usages)[number]) => number) => usages.reduce((sum, usage) => sum + of(usage), 0);
  const reasoning = total((usage) => usage.completion_tokens_details?.reasoning_tokens ?? 0);
  t.true(reasoning > 0, 'the reasoning model reasoned');

  const metrics = await metricsOf(gateway);
  t.is(sample(metrics, 'gateway_tokens_total{model="openai/reasoning",kind="input"}'), total((usage) => usage.prompt_tokens));
  t.is(sample(metrics, 'gateway_tokens_total{model="openai/reasoning",kind="output"}'), total((usage) => usage.completion_tokens));
  t.is(sample(metrics, 'gateway_tokens_total{model="openai/reasoning",kind="reasoning"}'), reasoning);
  t.is(sample(metrics, 'gateway_tokens_total{model="openai/reasoning",kind="cached"}'), undefined, 'nothing was cached');
  const charges = usages.map((usage) => expectedChargeUnits({ input: usage.prompt_tokens, cached: usage.prompt_tokens_details?.cached_tokens ?? 0, output: usage.completion_tokens }));
  t.is(sample(metrics, 'gateway_charged_units_total{model="openai/reasoning"}'), Number(charges[0]! + charges[1]!));
  t.is(sample(metrics, 'gateway_charged_rub_total{model="openai/reasoning"}'), Number(charges[0]!) / 10_000 + Number(charges[1]!) / 10_000);
  t.is(sample(metrics, 'gateway_upstream_ttft_seconds_count{provider="openai",model="openai/reasoning"}'), 2);
  t.is(sample(metrics, 'gateway_upstream_duration_seconds_count{provider="openai",model="openai/reasoning"}'), 2);
  t.is(sample(metrics, 'gateway_refusals_total{reason="rate_limit"}'), 1);
  t.is(sample(metrics, 'gateway_refusals_total{reason="budget"}'), 0);
});

testOnBackends('the job and hold backlog is read at scrape time: queued jobs by kind with the age of the oldest, active holds', async (t, database) => {
  const clock = testClock();
  // No job runner: the jobs stay queued, their holds active.
  const gateway = await startGateway(t, database, { raw: fastJobsConfig(), now: clock.now });
  const { key } = await gateway.newClient({ balanceUnits: 100_000_000n });
  let metrics = await metricsOf(gateway);
  t.is(sample(metrics, 'gateway_jobs{kind="video",status="queued"}'), 0);
  t.is(sample(metrics, 'gateway_active_holds'), 0);
  for (const prompt of ['one', 'two']) {
    t.is((await api(gateway, key, 'POST', '/v1/videos', { model: 'sim/video', prompt, seconds: 4 })).status, 200);
    clock.advance(5_000);
  }
  t.is((await api(gateway, key, 'POST', '/v1/audio/music', { model: 'sim/song', prompt: 'a tune' })).status, 200);
  clock.advance(1_500);
  metrics = await metricsOf(gateway);
  t.is(sample(metrics, 'gateway_jobs{kind="video",status="queued"}'), 2);
  t.is(sample(metrics, 'gateway_jobs_oldest_age_seconds{kind="video",status="queued"}'), 11.5);
  t.is(sample(metrics, 'gateway_jobs{kind="music",status="queued"}'), 1);
  t.is(sample(metrics, 'gateway_jobs_oldest_age_seconds{kind="music",status="queued"}'), 1.5);
  t.is(sample(metrics, 'gateway_jobs{kind="video",status="in_progress"}'), 0);
  t.is(sample(metrics, 'gateway_jobs{kind="video_upscale",status="queued"}'), 0);
  t.is(sample(metrics, 'gateway_active_holds'), 3);
});

test('metrics are registered once per gateway: two gateways in one process each count their own', async (t) => {
  const first = await startGateway(t, await sqlite(t));
  const second = await startGateway(t, await sqlite(t));
  await (await fetch(`${first.url}/v1/models`)).arrayBuffer();
  await (await fetch(`${first.url}/v1/models`)).arrayBuffer();
  await (await fetch(`${second.url}/v1/models`)).arrayBuffer();
  t.is(sample(await metricsOf(first), 'gateway_http_requests_total{route="/v1/models",method="GET",status="200"}'), 2);
  t.is(sample(await metricsOf(second), 'gateway_http_requests_total{route="/v1/models",method="GET",status="200"}'), 1);
  t.is(sample(await metricsOf(second), 'gateway_refusals_total{reason="rate_limit"}'), 0);
  t.is(sample(await metricsOf(second), 'gateway_refusals_total{reason="budget"}'), 0);
});
