// `gateway reconcile` (issue 18 item 6): what the gateway charged over a period, by provider and
// upstream model, checked two ways —
//   1. against the catalog: every usage record's tokens priced again at the model's price of
//      today (the same chargeForUsage the charge used, rounded per request as the charge was).
//      A sum that differs from what was charged is a mispriced model: its price changed after
//      the requests were charged, or a charge was capped at its hold;
//   2. against the vendor: the requests and tokens the gateway recorded beside those the
//      upstream's usage API reports for its model (vendors that have one: src/vendors/usage-types.ts).
// Usage records are taken by their own time; a request that failed before any output is left out
// (it carries no usage, and no vendor bills it). Media and job charges have
// usage records too (migration 20261126110000): they are priced again from their units where the
// model's price depends on nothing else (an image price by size or quality, a video by size or
// references: not re-priced). Charges without a usage record (made before that migration) are
// listed apart with their RUB.
import type { Knex } from 'knex';
import type { Catalog, CatalogModel } from '../catalog/catalog.js';
import { isPostgres } from '../db/dialect.js';
import { usageCategoryOf, type ReportedUsage, type UsageCategory } from '../vendors/usage-types.js';
import { chargeForUsage, tokenPrices } from './chat-pricing.js';
import { generationPriceUnits } from './job-pricing.js';
import { imagesPriceUnits, inputTokensPriceUnits, speechPriceUnits } from './media-pricing.js';
import { unitsFromSql } from '../util/money.js';
import { priceInUnits } from './pricing.js';
import { drainUsageOutbox } from './usage-outbox.js';
import type { UsageRecord } from './usage-record.js';

/** What the gateway recorded for one provider's upstream model over the period. */
export interface RecordedUsage {
  readonly provider: string;
  readonly upstreamModel: string;
  /** Catalog model ids the records name (several models may share one upstream model). */
  readonly models: string[];
  /** What the records are for (chat, images…), by their endpoints; undefined for an unknown endpoint. */
  readonly categories: (UsageCategory | undefined)[];
  requests: number;
  /** Records whose tokens the gateway counted itself (the upstream sent no usage, or a stream was cut). */
  estimatedRequests: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  images: number;
  characters: number;
  audioSeconds: number;
  videoSeconds: number;
  chargedUnits: bigint;
  /** Refunds of these charges (made at any time). */
  refundedUnits: bigint;
  /** The catalog's price of today for the recorded usage, per request rounded up; null when a record cannot be priced again. */
  repricedUnits: bigint | null;
  /** Models whose records cannot be priced again: gone from the catalog, or priced by what the record does not keep. */
  readonly notRepriced: string[];
}

/** Charges of the period without a usage record: media and jobs. */
export interface UnrecordedCharges {
  readonly model: string | null;
  /** The job's provider and upstream model; null for synchronous media (not recorded). */
  readonly provider: string | null;
  readonly upstreamModel: string | null;
  readonly requests: number;
  readonly chargedUnits: bigint;
}

/** The columns of a usage record that reconcile reads (usage-record.ts), with the id it pages by. */
type UsageRow = Required<Pick<UsageRecord, (typeof readColumns)[number]>> & { id: string | number; cost_units: string | number; estimated: boolean | number };

const readColumns = [
  'endpoint', 'status', 'model', 'provider', 'upstream_model', 'input_tokens', 'cached_input_tokens', 'cache_write_input_tokens', 'output_tokens', 'reasoning_tokens',
  'images', 'characters', 'audio_seconds', 'video_seconds', 'created_at',
] as const satisfies readonly (keyof UsageRecord)[];

/**
 * What the catalog's price of today gives for one record (the charge's own functions, rounded
 * once as the charge was); undefined when the price depends on what the record does not keep.
 */
export function repriceRecord(model: CatalogModel, row: Omit<UsageRow, 'id' | 'status' | 'model' | 'provider' | 'upstream_model' | 'cost_units' | 'estimated' | 'created_at'>): bigint | undefined {
  const pricing = model.config.pricing;
  switch (model.type) {
    case 'text':
    case 'search':
      return chargeForUsage(tokenPrices(pricing), {
        inputTokens: row.input_tokens,
        cachedInputTokens: row.cached_input_tokens,
        cacheWriteInputTokens: row.cache_write_input_tokens,
        outputTokens: row.output_tokens,
        reasoningTokens: row.reasoning_tokens,
      });
    case 'embeddings':
    case 'decision':
      return inputTokensPriceUnits(pricing, row.input_tokens);
    case 'tts':
      return speechPriceUnits(pricing, row.characters);
    case 'stt':
      return priceInUnits([{ quantity: row.audio_seconds, price: pricing.per_minute ?? '0', per: 60 }]);
    case 'image':
      return typeof pricing.per_image === 'string' ? imagesPriceUnits(pricing.per_image, row.images) : undefined;
    case 'video':
      // A price by size, or references, is not kept on the record; a flat price per second is enough.
      return typeof pricing.per_second === 'string' && pricing.per_reference === undefined && pricing.per_megapixel_second === undefined
        ? priceInUnits([{ quantity: row.video_seconds, price: pricing.per_second, per: 1 }])
        : undefined;
    case 'music':
      return pricing.per_generation === undefined ? undefined : generationPriceUnits(pricing);
  }
}

const defaultPageSize = 5_000;
const groupKey = (provider: string, upstreamModel: string) => `${provider}\u0000${upstreamModel}`;

/** The period's usage records by provider and upstream model, priced again at the catalog's prices; `since` inclusive, `until` exclusive (ms). */
export async function recordedUsage(db: Knex, catalog: Catalog, period: { since: number; until: number }, pageSize = defaultPageSize): Promise<RecordedUsage[]> {
  await drainUsageOutbox(db); // every charge's usage record, those SQLite settles left in the outbox too
  const groups = new Map<string, RecordedUsage>();
  const pricing = new Map(catalog.models.map((model) => [model.id, model] as const));
  // Pages in (created_at, id) order, so both databases walk the created_at index (ordered by id,
  // SQLite would walk the whole table by rowid).
  let after: { at: number; id: number } | undefined;
  for (;;) {
    const page = db('usage_records')
      .select('id', ...readColumns, 'cost_units', 'estimated')
      .where('created_at', '>=', period.since)
      .andWhere('created_at', '<', period.until);
    if (after) {
      const { at, id } = after;
      page.andWhere((next) => next.where('created_at', '>', at).orWhere((same) => same.where('created_at', '=', at).andWhere('id', '>', id)));
    }
    const rows: (UsageRow & { created_at: string | number })[] = await page.orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(pageSize);
    for (const row of rows) {
      const charged = unitsFromSql(row.cost_units);
      // A request that failed before any output: no usage, nothing charged, nothing a vendor bills.
      if (row.status !== 'completed' && row.input_tokens + row.output_tokens === 0 && charged === 0n) continue;
      const key = groupKey(row.provider, row.upstream_model);
      let group = groups.get(key);
      if (!group) {
        group = {
          provider: row.provider, upstreamModel: row.upstream_model, models: [], categories: [], requests: 0, estimatedRequests: 0, inputTokens: 0, cachedInputTokens: 0,
          outputTokens: 0, reasoningTokens: 0, images: 0, characters: 0, audioSeconds: 0, videoSeconds: 0, chargedUnits: 0n, refundedUnits: 0n, repricedUnits: 0n, notRepriced: [],
        };
        groups.set(key, group);
      }
      if (!group.models.includes(row.model)) group.models.push(row.model);
      const category = usageCategoryOf(row.endpoint);
      if (!group.categories.includes(category)) group.categories.push(category);
      group.requests += 1;
      if (row.estimated === true || row.estimated === 1) group.estimatedRequests += 1;
      group.inputTokens += row.input_tokens;
      group.cachedInputTokens += row.cached_input_tokens;
      group.outputTokens += row.output_tokens;
      group.reasoningTokens += row.reasoning_tokens;
      group.images += row.images;
      group.characters += row.characters;
      group.audioSeconds += row.audio_seconds;
      group.videoSeconds += row.video_seconds;
      group.chargedUnits += charged;
      const model = pricing.get(row.model);
      const repriced = model && repriceRecord(model, row);
      if (repriced === undefined) {
        if (!group.notRepriced.includes(row.model)) group.notRepriced.push(row.model);
        group.repricedUnits = null;
      } else if (group.repricedUnits !== null) group.repricedUnits += repriced;
    }
    if (rows.length < pageSize) break;
    const last = rows[rows.length - 1]!;
    after = { at: Number(last.created_at), id: Number(last.id) };
  }
  // Refunds of the period's charges (by the ledger's time, indexed), from each charge to its refund (the same hold).
  const refunds = await rowsOf<{ provider: string; upstream_model: string; refunded: string | number }>(
    db,
    await db.raw(
      `SELECT u.provider, u.upstream_model, SUM(r.amount_units) AS refunded
       FROM ledger_transactions c
       JOIN ledger_transactions r ON r.hold_id = c.hold_id AND r.kind = 'refund'
       JOIN usage_records u ON u.request_id = c.request_id AND u.account_id = c.account_id AND u.cost_units > 0
       WHERE c.kind = 'charge' AND c.created_at >= :since AND c.created_at < :until
       GROUP BY u.provider, u.upstream_model`,
      period,
    ),
  );
  for (const refund of refunds) {
    const group = groups.get(groupKey(refund.provider, refund.upstream_model));
    if (group) group.refundedUnits += unitsFromSql(refund.refunded);
  }
  for (const group of groups.values()) group.models.sort();
  return [...groups.values()].sort((a, b) => a.provider.localeCompare(b.provider) || a.upstreamModel.localeCompare(b.upstreamModel));
}

/** Charges of the period (by the ledger's time) that have no usage record, by model and, for jobs, the route they went to. */
export async function unrecordedCharges(db: Knex, period: { since: number; until: number }): Promise<UnrecordedCharges[]> {
  await drainUsageOutbox(db); // every charge's usage record, those SQLite settles left in the outbox too
  const rows = await rowsOf<{ model: string | null; provider: string | null; upstream_model: string | null; requests: string | number; charged: string | number }>(
    db,
    await db.raw(
      `SELECT l.model, j.provider, j.upstream_model, COUNT(*) AS requests, SUM(-l.amount_units) AS charged
       FROM ledger_transactions l
       LEFT JOIN usage_records u ON u.request_id = l.request_id AND u.account_id = l.account_id AND u.cost_units > 0
       LEFT JOIN jobs j ON j.hold_id = l.hold_id
       WHERE l.kind = 'charge' AND l.created_at >= :since AND l.created_at < :until AND u.id IS NULL
       GROUP BY l.model, j.provider, j.upstream_model`,
      period,
    ),
  );
  return rows
    .map((row) => ({ model: row.model, provider: row.provider, upstreamModel: row.upstream_model, requests: Number(row.requests), chargedUnits: unitsFromSql(row.charged) }))
    .sort((a, b) => (a.model ?? '').localeCompare(b.model ?? '') || (a.provider ?? '').localeCompare(b.provider ?? ''));
}

function rowsOf<T>(db: Knex, result: unknown): T[] {
  return isPostgres(db) ? (result as { rows: T[] }).rows : (result as T[]);
}

/** One way what was charged or recorded differs from the catalog's price or the vendor's report. */
export type Difference =
  | { readonly what: 'charged'; readonly chargedUnits: bigint; readonly catalogUnits: bigint }
  | { readonly what: 'requests' | 'input_tokens' | 'cached_input_tokens' | 'output_tokens'; readonly gateway: number; readonly vendor: number };

/** The differences of one upstream model: the catalog's price of its tokens, and the vendor's counts when it reported (undefined: not read). */
export function differencesOf(recorded: RecordedUsage | undefined, reported: ReportedUsage | undefined, vendorRead: boolean): Difference[] {
  const differences: Difference[] = [];
  if (recorded && recorded.repricedUnits !== null && recorded.repricedUnits !== recorded.chargedUnits) {
    differences.push({ what: 'charged', chargedUnits: recorded.chargedUnits, catalogUnits: recorded.repricedUnits });
  }
  if (vendorRead) {
    const fields = [
      ['requests', recorded?.requests ?? 0, reported?.requests ?? 0],
      ['input_tokens', recorded?.inputTokens ?? 0, reported?.inputTokens ?? 0],
      ['cached_input_tokens', recorded?.cachedInputTokens ?? 0, reported?.cachedInputTokens ?? 0],
      ['output_tokens', recorded?.outputTokens ?? 0, reported?.outputTokens ?? 0],
    ] as const;
    for (const [what, gateway, vendor] of fields) if (gateway !== vendor) differences.push({ what, gateway, vendor });
  }
  return differences;
}
