// `gateway usage` (issue 18): exact sums by model, key, account and day, and the RUB charged
// per account over a period equal to the ledger's charges in that period, on both databases.
import test from 'ava';
import type { Knex } from 'knex';
import { Accounts } from '../../src/accounts/accounts.js';
import { Ledger } from '../../src/billing/ledger.js';
import { presentUsage, toCsv, usageReport } from '../../src/billing/usage-report.js';
import { testOnBackends } from '../helpers/backends.js';

const day = 86_400_000;
const t0 = Date.UTC(2026, 10, 20); // 2026-11-20T00:00Z

function usage(requestId: string, accountId: string, keyId: string, model: string, tokens: [number, number, number, number], createdAt: number) {
  const [input, cached, output, reasoning] = tokens;
  return {
    request_id: requestId, account_id: accountId, key_id: keyId, endpoint: 'chat-completions', model, provider: 'sim', upstream_model: 'chat', status: 'completed' as const,
    input_tokens: input, cached_input_tokens: cached, cache_write_input_tokens: 0, output_tokens: output, reasoning_tokens: reasoning,
    estimated: false, latency_ms: 5, ttft_ms: 1, finish_reason: 'stop', created_at: createdAt,
  };
}

async function ledgerCharges(db: Knex, accountId: string, since: number, until: number): Promise<bigint> {
  const row = await db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).andWhere('created_at', '>=', since).andWhere('created_at', '<', until).sum({ s: 'amount_units' }).first();
  return -BigInt(row?.s ?? 0);
}

testOnBackends('usage by account, model, key and day: exact sums; RUB per account over a period equal the ledger charges of that period', async (t, { db }) => {
  let now = t0;
  const ledger = new Ledger(db, () => now);
  const accounts = new Accounts(db);
  const a = await accounts.create('alpha');
  const b = await accounts.create('beta');
  await ledger.credit(a.id, 100_000_000n, 'topup');
  await ledger.credit(b.id, 100_000_000n, 'topup');
  let n = 0;
  /** A chat request: hold, then a settle that writes its usage record (as the pipeline does). */
  const chat = async (accountId: string, keyId: string, model: string, units: bigint, tokens: [number, number, number, number]) => {
    const requestId = `req_${++n}`;
    const hold = await ledger.hold(accountId, units + 1_000n, { ttlMs: day, requestId, model });
    await ledger.settle(hold.id, units, { requestId, model, usage: usage(requestId, accountId, keyId, model, tokens, now) });
  };
  /** A media request: charged, no usage record; its key in the request log. */
  const media = async (accountId: string, keyId: string, model: string, units: bigint) => {
    const requestId = `req_${++n}`;
    const hold = await ledger.hold(accountId, units, { ttlMs: day, requestId, model });
    await ledger.settle(hold.id, units, { requestId, model });
    await db('request_log').insert({ request_id: requestId, account_id: accountId, key_id: keyId, method: 'POST', route: '/v1/images/generations', model, status: 200, duration_us: 1, charged_units: Number(units), created_at: now });
  };
  // Day 1 (2026-11-20)
  now = t0 + 1_000;
  await chat(a.id, 'key_a1', 'm/chat', 12_345n, [1_000, 200, 300, 40]);
  await chat(a.id, 'key_a2', 'm/chat', 1n, [10, 0, 1, 0]);
  await media(a.id, 'key_a1', 'm/image', 400_000n);
  await chat(b.id, 'key_b', 'm/other', 99_999n, [5_000, 0, 2_000, 1_500]);
  // A free request: tokens, no money.
  await db('usage_records').insert({ ...usage(`req_${++n}`, a.id, 'key_a1', 'm/free', [70, 0, 7, 0], now), cost_units: 0 });
  // Day 2 (2026-11-21): a job's charge (its key from the job row).
  now = t0 + day + 5;
  const jobHold = await ledger.hold(b.id, 360_000n, { ttlMs: day, requestId: 'req_job', model: 'm/video' });
  await db('jobs').insert({
    id: 'video_1', kind: 'video', account_id: b.id, key_id: 'key_b', model: 'm/video', status: 'completed', progress: 100, request: '{}', request_hash: 'h',
    endpoint: 'videos', hold_id: jobHold.id, hold_units: 360_000, charged_units: 360_000, polls: 0, next_run_at: 0, deadline_at: 0, request_id: 'req_job', created_at: 0, updated_at: 0,
  });
  await ledger.settle(jobHold.id, 360_000n, { requestId: 'req_job', model: 'm/video' });
  await chat(a.id, 'key_a1', 'm/chat', 7n, [3, 1, 2, 0]);
  // Day 3: outside the period below.
  now = t0 + 2 * day;
  await chat(a.id, 'key_a1', 'm/chat', 5_000n, [1, 0, 1, 0]);

  const period = { since: t0, until: t0 + 2 * day };
  const byAccount = await usageReport(db, { ...period, by: 'account' });
  t.deepEqual(byAccount, [
    { group: a.id, requests: 5, inputTokens: 1_083, cachedInputTokens: 201, outputTokens: 310, reasoningTokens: 40, mediaRequests: 1, images: 0, characters: 0, audioSeconds: 0, videoSeconds: 0, chargedUnits: 412_353n },
    { group: b.id, requests: 2, inputTokens: 5_000, cachedInputTokens: 0, outputTokens: 2_000, reasoningTokens: 1_500, mediaRequests: 1, images: 0, characters: 0, audioSeconds: 0, videoSeconds: 0, chargedUnits: 459_999n },
  ].sort((x, y) => x.group.localeCompare(y.group)));
  for (const row of byAccount) t.is(row.chargedUnits, await ledgerCharges(db, row.group!, period.since, period.until), `${row.group}: the ledger's charges`);
  // Any period: the day boundaries split the same money.
  for (const [since, until] of [[t0, t0 + day], [t0 + day, t0 + 3 * day], [t0 + 1_001, t0 + day + 6]] as const) {
    const rows = await usageReport(db, { since, until, by: 'account' });
    for (const account of [a.id, b.id]) t.is(rows.find((row) => row.group === account)?.chargedUnits ?? 0n, await ledgerCharges(db, account, since, until), `${account} in [${since}, ${until})`);
  }

  t.deepEqual(
    (await usageReport(db, { ...period, by: 'model' })).map((row) => [row.group, row.requests, row.mediaRequests, row.chargedUnits]),
    [['m/chat', 3, 0, 12_353n], ['m/free', 1, 0, 0n], ['m/image', 1, 1, 400_000n], ['m/other', 1, 0, 99_999n], ['m/video', 1, 1, 360_000n]],
  );
  t.deepEqual(
    (await usageReport(db, { ...period, by: 'key' })).map((row) => [row.group, row.requests, row.chargedUnits]),
    [['key_a1', 4, 412_352n], ['key_a2', 1, 1n], ['key_b', 2, 459_999n]],
  );
  t.deepEqual(
    (await usageReport(db, { ...period, by: 'day', accountId: a.id })).map((row) => [row.group, row.requests, row.inputTokens, row.chargedUnits]),
    [['2026-11-20', 4, 1_080, 412_346n], ['2026-11-21', 1, 3, 7n]],
  );
  t.deepEqual(presentUsage(await usageReport(db, { ...period, by: 'day', accountId: b.id }), 'day'), [
    { day: '2026-11-20', requests: 1, input_tokens: 5_000, cached_input_tokens: 0, output_tokens: 2_000, reasoning_tokens: 1_500, media_requests: 0, images: 0, characters: 0, audio_seconds: 0, video_seconds: 0, charged_rub: '9.9999' },
    { day: '2026-11-21', requests: 1, input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, media_requests: 1, images: 0, characters: 0, audio_seconds: 0, video_seconds: 0, charged_rub: '36.0000' },
  ]);
});

test('CSV: a header row, CRLF, fields with commas, quotes or line breaks quoted (RFC 4180)', (t) => {
  t.is(
    toCsv([{ model: 'a,b', requests: 2, note: 'say "hi"' }, { model: 'x\ny', requests: 0, note: null }], ['model', 'requests', 'note']),
    'model,requests,note\r\n"a,b",2,"say ""hi"""\r\n"x\ny",0,\r\n',
  );
});

testOnBackends('media units: the images, characters and seconds of audio and video each charge was for, summed exactly beside the ledger\'s RUB', async (t, { db }) => {
  const now = t0 + 10;
  const ledger = new Ledger(db, () => now);
  const account = await new Accounts(db).create('media');
  await ledger.credit(account.id, 100_000_000n, 'topup');
  let n = 0;
  const charge = async (model: string, endpoint: string, units: bigint, media: { images?: number; characters?: number; audio_seconds?: number; video_seconds?: number; input_tokens?: number }) => {
    const requestId = `req_media_${++n}`;
    const hold = await ledger.hold(account.id, units, { ttlMs: day, requestId, model });
    const record = { ...usage(requestId, account.id, 'key_m', model, [media.input_tokens ?? 0, 0, 0, 0], now), endpoint, images: media.images ?? 0, characters: media.characters ?? 0, audio_seconds: media.audio_seconds ?? 0, video_seconds: media.video_seconds ?? 0 };
    await ledger.settle(hold.id, units, { requestId, model, usage: record });
  };
  await charge('m/image', 'images', 108_000n, { images: 3 });
  await charge('m/image', 'image-edits', 36_000n, { images: 1 });
  await charge('m/tts', 'speech', 149n, { characters: 11 });
  await charge('m/stt', 'transcriptions', 63n, { audio_seconds: 7 });
  await charge('m/video', 'videos', 360_000n, { video_seconds: 4 });
  await charge('m/song', 'audio/music', 72_000n, { audio_seconds: 13 });
  await charge('m/embed', 'embeddings', 1n, { input_tokens: 42 });
  await chatCharge();
  async function chatCharge() {
    const requestId = `req_media_${++n}`;
    const hold = await ledger.hold(account.id, 5_000n, { ttlMs: day, requestId, model: 'm/chat' });
    await ledger.settle(hold.id, 4_321n, { requestId, model: 'm/chat', usage: usage(requestId, account.id, 'key_m', 'm/chat', [100, 0, 20, 0], now) });
  }
  const period = { since: t0, until: t0 + day };
  const byModel = await usageReport(db, { ...period, by: 'model' });
  t.deepEqual(
    byModel.map((row) => [row.group, row.requests, row.mediaRequests, row.inputTokens, row.images, row.characters, row.audioSeconds, row.videoSeconds, row.chargedUnits]),
    [
      ['m/chat', 1, 0, 100, 0, 0, 0, 0, 4_321n],
      ['m/embed', 1, 1, 42, 0, 0, 0, 0, 1n],
      ['m/image', 2, 2, 0, 4, 0, 0, 0, 144_000n],
      ['m/song', 1, 1, 0, 0, 0, 13, 0, 72_000n],
      ['m/stt', 1, 1, 0, 0, 0, 7, 0, 63n],
      ['m/tts', 1, 1, 0, 0, 11, 0, 0, 149n],
      ['m/video', 1, 1, 0, 0, 0, 0, 4, 360_000n],
    ],
  );
  const [total] = await usageReport(db, { ...period, by: 'account' });
  t.like(total, { requests: 8, mediaRequests: 7, images: 4, characters: 11, audioSeconds: 20, videoSeconds: 4, chargedUnits: 580_534n });
  t.is(total!.chargedUnits, await ledgerCharges(db, account.id, period.since, period.until));
  // Each charge wrote one usage record, in its own commit, costing what was charged.
  const records = await db('usage_records').where({ account_id: account.id }).orderBy('id');
  t.deepEqual(records.map((record: any) => Number(record.cost_units)), [108_000, 36_000, 149, 63, 360_000, 72_000, 1, 4_321]);
});
