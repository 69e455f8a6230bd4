// `gateway reconcile`'s reading of the database (the CLI and the vendor side: test/cli/reconcile-cli.test.ts):
// usage records of a period by provider and upstream model, read in pages that neither skip nor
// repeat a record (several share a millisecond), priced again at today's catalog; what cannot be
// priced again is named; a refund of a charge is counted with it; both databases.
import test from 'ava';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { Accounts } from '../../src/accounts/accounts.js';
import { Ledger } from '../../src/billing/ledger.js';
import { differencesOf, recordedUsage, repriceRecord } from '../../src/billing/reconcile.js';
import { Catalog } from '../../src/catalog/catalog.js';
import { loadConfig } from '../../src/config/load.js';
import { testOnBackends } from '../helpers/backends.js';
import { exampleConfigPath } from '../helpers/gateway.js';

const t0 = Date.UTC(2026, 10, 20);
const catalog = new Catalog(loadConfig({ raw: parse(readFileSync(exampleConfigPath, 'utf8')), env: {} }));

function record(requestId: string, accountId: string, model: string, upstreamModel: string, endpoint: string, units: Partial<Record<string, number>>, createdAt: number) {
  return {
    request_id: requestId, account_id: accountId, key_id: 'k', endpoint, model, provider: 'sim', upstream_model: upstreamModel, status: 'completed' as const,
    input_tokens: units.input ?? 0, cached_input_tokens: units.cached ?? 0, cache_write_input_tokens: 0, output_tokens: units.output ?? 0, reasoning_tokens: 0,
    estimated: false, latency_ms: 1, ttft_ms: null, finish_reason: null, created_at: createdAt,
    images: units.images ?? 0, characters: units.characters ?? 0, audio_seconds: units.audio ?? 0, video_seconds: units.video ?? 0,
  };
}

testOnBackends('recorded usage: every record of the period once, across pages and shared milliseconds; priced again; refunds with their charge', async (t, { db }) => {
  let now = t0;
  const ledger = new Ledger(db, () => now);
  const account = await new Accounts(db).create('acme');
  await ledger.credit(account.id, 100_000_000n, 'topup');
  let n = 0;
  const charge = async (model: string, upstreamModel: string, endpoint: string, units: bigint, usage: Partial<Record<string, number>>, at: number) => {
    now = at;
    const requestId = `req_${++n}`;
    const hold = await ledger.hold(account.id, units, { ttlMs: 86_400_000, requestId, model });
    await ledger.settle(hold.id, units, { requestId, model, usage: record(requestId, account.id, model, upstreamModel, endpoint, usage, at) });
    return requestId;
  };
  // sim/chat at 13.50 / 1.35 / 54.00 RUB per 1M: 1000 in (200 cached) + 100 out = 0.01080 + 0.00027 + 0.0054 → 165 units.
  for (let i = 0; i < 5; i++) await charge('sim/chat', 'chat', 'messages', 165n, { input: 1000, cached: 200, output: 100 }, t0 + 10 + (i < 3 ? 0 : i)); // three in one millisecond
  await charge('sim/chat', 'chat', 'messages', 100n, { input: 1000, cached: 200, output: 100 }, t0 + 20); // charged 100 where the catalog says 165
  const speech = await charge('sim/tts', 'tts', 'speech', 149n, { characters: 11 }, t0 + 30);
  await charge('sim/image', 'image', 'images', 36_000n, { images: 1 }, t0 + 40); // priced by quality: not priced again
  await charge('sim/chat', 'chat', 'messages', 165n, { input: 1000, cached: 200, output: 100 }, t0 + 86_400_000); // outside the period
  await db('usage_records').insert({ ...record('req_failed', account.id, 'sim/chat', 'chat', 'messages', {}, t0 + 50), status: 'failed', cost_units: 0 }); // failed before output: left out
  // A refund of the speech's charge.
  const speechCharge = await db('ledger_transactions').where({ request_id: speech, kind: 'charge' }).first();
  now = t0 + 60;
  await ledger.credit(account.id, 149n, 'refund', { holdId: speechCharge.hold_id, requestId: speech });

  for (const pageSize of [2, 3, 5_000]) {
    const rows = await recordedUsage(db, catalog, { since: t0, until: t0 + 86_400_000 }, pageSize);
    t.deepEqual(
      rows.map((row) => [row.upstreamModel, row.models, row.categories, row.requests, row.inputTokens, row.cachedInputTokens, row.outputTokens, row.images, row.characters, row.chargedUnits, row.refundedUnits, row.repricedUnits, row.notRepriced]),
      [
        ['chat', ['sim/chat'], ['chat'], 6, 6_000, 1_200, 600, 0, 0, 925n, 0n, 990n, []],
        ['image', ['sim/image'], ['images'], 1, 0, 0, 0, 1, 0, 36_000n, 0n, null, ['sim/image']],
        ['tts', ['sim/tts'], ['speech'], 1, 0, 0, 0, 0, 11, 149n, 149n, 149n, []],
      ],
      `pages of ${pageSize}`,
    );
  }
  const [chat] = await recordedUsage(db, catalog, { since: t0, until: t0 + 86_400_000 });
  t.deepEqual(differencesOf(chat, { upstreamModel: 'chat', requests: 6, inputTokens: 6_000, cachedInputTokens: 1_200, outputTokens: 640 }, true), [
    { what: 'charged', chargedUnits: 925n, catalogUnits: 990n },
    { what: 'output_tokens', gateway: 600, vendor: 640 },
  ]);
  t.deepEqual(differencesOf(chat, undefined, false), [{ what: 'charged', chargedUnits: 925n, catalogUnits: 990n }], 'no vendor read: the catalog only');
});

test('priced again with the charge\'s own functions, per model type', (t) => {
  const model = (id: string) => catalog.models.find((candidate) => candidate.id === id)!;
  const units = { endpoint: '', input_tokens: 0, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, images: 0, characters: 0, audio_seconds: 0, video_seconds: 0 };
  t.is(repriceRecord(model('sim/stt'), { ...units, audio_seconds: 61 }), 5_490n); // 61 s at 0.54 RUB a minute = 0.549 RUB
  t.is(repriceRecord(model('sim/embedding-small'), { ...units, input_tokens: 1_000_000 }), 18_000n);
  t.is(repriceRecord(model('sim/image-upscale'), { ...units, images: 2 }), 72_000n);
  t.is(repriceRecord(model('sim/song'), units), 72_000n);
  t.is(repriceRecord(model('sim/video'), { ...units, video_seconds: 4 }), undefined, 'priced by size and references');
});
