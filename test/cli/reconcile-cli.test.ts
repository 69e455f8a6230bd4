// `gateway reconcile` through the binary (issue 18 item 6): a serve process charges chat requests
// sent to a `gateway simulate` upstream; reconcile reads the simulator's usage API over HTTP
// (OpenAI's organization usage shape) and the database, and prints the differences by provider
// and upstream model — none at first (exit 0), nor after a stream the upstream sent without
// usage (the gateway counted the tokens itself, as the vendor did); then the output of a stream
// the upstream cut, which the vendor bills whole and the gateway charged as far as it arrived,
// and a model whose catalog price changed after its requests were charged (exit 3 both times).
// `gateway usage` of the same period: the speech's characters, and RUB equal to the ledger.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { formatRub } from '../../src/util/money.js';
import { runCli } from '../helpers/cli.js';
import { createClient, processEnv, startProcess, startSimulatorProcess, writeSharedConfig } from '../helpers/processes.js';

const day = 86_400_000;

testOnBackends('reconcile: nothing differs (exit 0), then uncounted tokens and a changed price are named by provider and model (exit 3)', async (t, database) => {
  t.timeout(480_000); // eight process starts: minutes on a loaded machine
  const simulator = await startSimulatorProcess(t);
  const configPath = writeSharedConfig(simulator.url);
  const env = processEnv(configPath, database);
  const client = await createClient(database, 10_000_000n);
  const serve = await startProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env);
  t.teardown(() => serve.stop());
  const chat = async (path: string, body: Record<string, unknown>) => {
    const response = await fetch(`${serve.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${client.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    t.is(response.status, 200, text);
  };
  await chat('/v1/chat/completions', { model: 'sim/chat', max_tokens: 50, messages: [{ role: 'user', content: 'reconcile me' }] });
  await chat('/v1/messages', { model: 'sim/chat', max_tokens: 50, messages: [{ role: 'user', content: 'and me too' }] });
  // A media charge: its usage record holds the characters of speech; the simulator's usage API reports chat only.
  const speech = await fetch(`${serve.url}/v1/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${client.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sim/tts', input: 'hello there', voice: 'alloy' }) });
  t.is(speech.status, 200);

  // The period: yesterday's UTC midnight to now (reconcile's default end), wide of any day boundary.
  const since = new Date(Math.floor(Date.now() / day) * day - day).toISOString().slice(0, 10);
  const reconcileEnv = { ...env, DEEPSEEK_API_KEY: 'sk-not-used' }; // an enabled provider whose vendor has no usage API
  const first = await runCli(['reconcile', '--since', since, '--json'], reconcileEnv);
  t.is(first.exitCode, 0, first.stderr);
  const clean = JSON.parse(first.stdout);
  t.like(clean, { object: 'list', has_more: false, since: `${since}T00:00:00.000Z`, differs: false, totals: { charged_rub: '0.0173', refunded_rub: '0.0000', unrecorded_rub: '0.0000' } });
  t.deepEqual(clean.providers, [
    { provider: 'deepseek', kind: 'openai-compatible', usage_api: 'none', detail: 'no usage API' },
    { provider: 'sim', kind: 'sim', usage_api: 'read', detail: null },
  ]);
  const noMedia = { images: 0, characters: 0, audio_seconds: 0, video_seconds: 0 };
  // "reconcile me" and "and me too": 3 + ceil(12/4) and 3 + ceil(10/4) input tokens, 20 output each.
  const chatRow = (requests: number, estimated: number, input: number, output: number, charged: string, vendorOutput: number) => ({
    provider: 'sim', upstream_model: 'chat', models: ['sim/chat'], requests, estimated_requests: estimated, input_tokens: input, cached_input_tokens: 0, output_tokens: output, reasoning_tokens: 0,
    ...noMedia, charged_rub: charged, refunded_rub: '0.0000', catalog_rub: charged, not_repriced: [],
    vendor: { requests, input_tokens: input, cached_input_tokens: 0, output_tokens: vendorOutput },
    differences: output === vendorOutput ? [] : [{ what: 'output_tokens', gateway: output, vendor: vendorOutput }],
  });
  // The speech: its 11 characters at 1350 RUB per 1M, priced again; the simulator's usage API covers chat only (vendor: null).
  const speechRow = {
    provider: 'sim', upstream_model: 'tts', models: ['sim/tts'], requests: 1, estimated_requests: 0, input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0,
    ...noMedia, characters: 11, charged_rub: '0.0149', refunded_rub: '0.0000', catalog_rub: '0.0149', not_repriced: [], vendor: null, differences: [],
  };
  t.deepEqual(clean.data, [chatRow(2, 0, 12, 40, '0.0024', 40), speechRow]);
  t.deepEqual(clean.unrecorded, []);

  // gateway usage: the same charges with their units, equal to the ledger to the unit.
  const usage = await runCli(['usage', '--since', since, '--by', 'model', '--json'], env);
  t.is(usage.exitCode, 0, usage.stderr);
  const report = JSON.parse(usage.stdout);
  const ledgerSum = await database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' }).sum({ s: 'amount_units' }).first();
  t.is(report.totals.charged_rub, formatRub(-BigInt(ledgerSum!.s)));
  t.deepEqual(report.data.map((row: any) => [row.model, row.requests, row.media_requests, row.input_tokens, row.output_tokens, row.characters, row.charged_rub]), [
    ['sim/chat', 2, 0, 12, 40, 0, '0.0024'],
    ['sim/tts', 1, 1, 0, 0, 11, '0.0149'],
  ]);
  t.is(report.totals.charged_rub, '0.0173');

  // The upstream streams without usage (its Anthropic usage fields all zero): the gateway counts the tokens itself, as the vendor does.
  await chat('/v1/chat/completions', { model: 'sim/chat', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'count it yourself [[sim:no-usage]]' }] });
  const counted = await runCli(['reconcile', '--since', since, '--json'], env);
  t.is(counted.exitCode, 0, counted.stderr);
  t.deepEqual(JSON.parse(counted.stdout).data, [chatRow(3, 1, 24, 60, '0.0037', 60), speechRow]);
  // The upstream cuts a stream halfway: it bills the whole answer (20 tokens), the gateway charged the 11 that arrived.
  await chat('/v1/chat/completions', { model: 'sim/chat', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'cut me off [[sim:drop]]' }] });
  const second = await runCli(['reconcile', '--since', since, '--json'], env);
  t.is(second.exitCode, 3, second.stderr);
  const cut = JSON.parse(second.stdout);
  t.true(cut.differs);
  t.deepEqual(cut.data, [chatRow(4, 2, 33, 71, '0.0045', 80), speechRow]);

  // The catalog's price of sim/chat output changes after the requests were charged.
  const raw = parse(readFileSync(configPath, 'utf8'));
  raw.models.find((model: { id: string }) => model.id === 'sim/chat').pricing.per_1m_output_tokens = '60.00';
  const repriced = path.join(path.dirname(configPath), 'repriced.yaml');
  writeFileSync(repriced, stringify(raw));
  const third = await runCli(['reconcile', '--since', since, '--json'], { ...env, GATEWAY_CONFIG: repriced });
  t.is(third.exitCode, 3, third.stderr);
  const mispriced = JSON.parse(third.stdout);
  t.like(mispriced.data[0], { charged_rub: '0.0045', catalog_rub: '0.0048' });
  t.deepEqual(mispriced.data[0].differences, [
    { what: 'charged', charged_rub: '0.0045', catalog_rub: '0.0048', difference_rub: '-0.0003' },
    { what: 'output_tokens', gateway: 71, vendor: 80 },
  ]);
  t.deepEqual(mispriced.data[1], speechRow);

  const text = await runCli(['reconcile', '--since', since], { ...env, GATEWAY_CONFIG: repriced });
  t.is(text.exitCode, 3);
  t.true(
    text.stdout.endsWith(
      "Differences:\n  sim chat: charged 0.0045 RUB, the catalog's price of the recorded usage is 0.0048 RUB (-0.0003)\n  sim chat: output_tokens 71 recorded, 80 reported by the vendor",
    ),
    text.stdout,
  );
  const csv = await runCli(['reconcile', '--since', since, '--csv'], env);
  t.is(csv.exitCode, 3);
  t.is(
    csv.stdout,
    [
      'provider,upstream_model,models,requests,vendor_requests,estimated_requests,input_tokens,vendor_input_tokens,cached_input_tokens,vendor_cached_input_tokens,output_tokens,vendor_output_tokens,reasoning_tokens,charged_rub,catalog_rub,refunded_rub,differences',
      'sim,chat,sim/chat,4,4,2,33,33,0,0,71,80,0,0.0045,0.0045,0.0000,output_tokens',
      'sim,tts,sim/tts,1,,0,0,,0,,0,,0,0.0149,0.0149,0.0000,',
    ].join('\r\n'),
  );
  await assertLedgerInvariants(t, database.db);
});
