// `gateway reconcile`: the gateway's records of a period (reconcile.ts) beside what each upstream
// reports through its usage API, by provider and upstream model, with every difference named.
// The command exits 3 when anything differs (docs/operations.md "Reconciliation"), so a cron job
// alerts; an upstream whose usage API could not be read counts as a difference (nothing was
// checked against it). Providers without a usage API are listed as such and not a difference.
import type { Knex } from 'knex';
import type { Catalog } from '../catalog/catalog.js';
import type { Config } from '../config/load.js';
import { usageApiFor, vendorOf } from '../vendors/registry.js';
import { readReportedUsage } from '../vendors/shared/usage-transport.js';
import { createUpstreams } from '../vendors/upstreams.js';
import type { ReportedUsage, UsageCategory } from '../vendors/usage-types.js';
import { formatRub } from '../util/money.js';
import { differencesOf, recordedUsage, unrecordedCharges, type Difference, type RecordedUsage, type UnrecordedCharges } from './reconcile.js';

/** Exit status of `gateway reconcile` when something differs (1 is an error, 2 a usage error). */
export const differencesExitCode = 3;

export interface ProviderCheck {
  readonly provider: string;
  readonly kind: string | null;
  /** read: its usage API answered; none: it has none the gateway can read; failed: it did not answer. */
  readonly usageApi: 'read' | 'none' | 'failed';
  readonly detail: string | null;
}

export interface ReconcileRow {
  readonly provider: string;
  readonly upstreamModel: string;
  readonly recorded: RecordedUsage | undefined;
  /** The vendor's report of this model; undefined when it reported nothing of it, or was not read. */
  readonly reported: ReportedUsage | undefined;
  /** Whether the vendor's report was read and covers what these records are for. */
  readonly vendorRead: boolean;
  readonly differences: Difference[];
}

export interface Reconciliation {
  readonly providers: ProviderCheck[];
  readonly rows: ReconcileRow[];
  readonly unrecorded: UnrecordedCharges[];
  readonly differs: boolean;
}

export async function reconcile(services: { db: Knex; catalog: Catalog; config: Config }, period: { since: number; until: number }): Promise<Reconciliation> {
  const recorded = await recordedUsage(services.db, services.catalog, period);
  const unrecorded = await unrecordedCharges(services.db, period);
  const names = [...new Set([...Object.values(services.config.providers).filter((provider) => provider.enabled).map((provider) => provider.name), ...recorded.map((row) => row.provider)])].sort();
  // No simulator is started here: a `sim` provider without base_url is one each serving process starts for itself.
  const upstreams = createUpstreams(services.config.providers, undefined);
  const providers: ProviderCheck[] = [];
  const reports = new Map<string, { covers: readonly UsageCategory[]; usage: Map<string, ReportedUsage> }>();
  try {
    for (const name of names) {
      const config = Object.hasOwn(services.config.providers, name) ? services.config.providers[name] : undefined;
      const kind = config?.kind ?? null;
      const api = kind === null ? undefined : usageApiFor(kind);
      const upstream = upstreams.get(name);
      if (!config) providers.push({ provider: name, kind, usageApi: 'none', detail: 'not in the configuration' });
      else if (!api) providers.push({ provider: name, kind, usageApi: 'none', detail: 'no usage API' });
      else if (!config.enabled) providers.push({ provider: name, kind, usageApi: 'none', detail: `${config.apiKeyEnv} is not set` });
      else if (!upstream) {
        const simulator = vendorOf(config.kind)?.servedBySimulator === true;
        providers.push({ provider: name, kind, usageApi: 'none', detail: simulator ? 'the built-in simulator of each serving process (give the provider a base_url, e.g. of `gateway simulate`, to read its usage)' : 'no base_url' });
      } else {
        try {
          reports.set(name, { covers: api.covers, usage: await readReportedUsage(upstream, api, period) });
          providers.push({ provider: name, kind, usageApi: 'read', detail: null });
        } catch (error) {
          providers.push({ provider: name, kind, usageApi: 'failed', detail: error instanceof Error ? error.message : String(error) });
        }
      }
    }
  } finally {
    await Promise.all([...upstreams.values()].map((upstream) => upstream.dispatcher.close().catch(() => undefined)));
  }

  const rows: ReconcileRow[] = [];
  for (const row of recorded) {
    const report = reports.get(row.provider);
    // Compared only with a report that covers what the records are for (a chat-only usage API says nothing of images).
    const compared = report !== undefined && row.categories.every((category) => category !== undefined && report.covers.includes(category));
    const reported = compared ? report.usage.get(row.upstreamModel) : undefined;
    rows.push({ provider: row.provider, upstreamModel: row.upstreamModel, recorded: row, reported, vendorRead: compared, differences: differencesOf(row, reported, compared) });
  }
  // What a vendor reports for models the gateway recorded nothing of (another client of the same account, or requests the gateway lost).
  for (const [provider, report] of reports) {
    for (const reported of report.usage.values()) {
      if (recorded.some((row) => row.provider === provider && row.upstreamModel === reported.upstreamModel)) continue;
      rows.push({ provider, upstreamModel: reported.upstreamModel, recorded: undefined, reported, vendorRead: true, differences: differencesOf(undefined, reported, true) });
    }
  }
  rows.sort((a, b) => a.provider.localeCompare(b.provider) || a.upstreamModel.localeCompare(b.upstreamModel));
  const differs = rows.some((row) => row.differences.length > 0) || providers.some((provider) => provider.usageApi === 'failed');
  return { providers, rows, unrecorded, differs };
}

function presentDifference(difference: Difference) {
  if (difference.what === 'charged') {
    return { what: 'charged', charged_rub: formatRub(difference.chargedUnits), catalog_rub: formatRub(difference.catalogUnits), difference_rub: formatRub(difference.chargedUnits - difference.catalogUnits) };
  }
  return { what: difference.what, gateway: difference.gateway, vendor: difference.vendor };
}

/** One line a person reads. */
export function describeDifference(provider: string, upstreamModel: string, difference: Difference): string {
  if (difference.what === 'charged') {
    return `${provider} ${upstreamModel}: charged ${formatRub(difference.chargedUnits)} RUB, the catalog's price of the recorded usage is ${formatRub(difference.catalogUnits)} RUB (${formatRub(difference.chargedUnits - difference.catalogUnits)})`;
  }
  return `${provider} ${upstreamModel}: ${difference.what} ${difference.gateway} recorded, ${difference.vendor} reported by the vendor`;
}

/** The rows as --json and --csv print them. */
export function presentReconcileRows(rows: readonly ReconcileRow[]) {
  return rows.map(({ provider, upstreamModel, recorded, reported, vendorRead, differences }) => ({
    provider,
    upstream_model: upstreamModel,
    models: recorded?.models ?? [],
    requests: recorded?.requests ?? 0,
    estimated_requests: recorded?.estimatedRequests ?? 0,
    input_tokens: recorded?.inputTokens ?? 0,
    cached_input_tokens: recorded?.cachedInputTokens ?? 0,
    output_tokens: recorded?.outputTokens ?? 0,
    reasoning_tokens: recorded?.reasoningTokens ?? 0,
    images: recorded?.images ?? 0,
    characters: recorded?.characters ?? 0,
    audio_seconds: recorded?.audioSeconds ?? 0,
    video_seconds: recorded?.videoSeconds ?? 0,
    charged_rub: formatRub(recorded?.chargedUnits ?? 0n),
    refunded_rub: formatRub(recorded?.refundedUnits ?? 0n),
    catalog_rub: recorded === undefined ? formatRub(0n) : recorded.repricedUnits === null ? null : formatRub(recorded.repricedUnits),
    not_repriced: recorded?.notRepriced ?? [],
    vendor: !vendorRead
      ? null
      : { requests: reported?.requests ?? 0, input_tokens: reported?.inputTokens ?? 0, cached_input_tokens: reported?.cachedInputTokens ?? 0, output_tokens: reported?.outputTokens ?? 0 },
    differences: differences.map(presentDifference),
  }));
}

export function presentProviders(providers: readonly ProviderCheck[]) {
  return providers.map((provider) => ({ provider: provider.provider, kind: provider.kind, usage_api: provider.usageApi, detail: provider.detail }));
}

export function presentUnrecorded(unrecorded: readonly UnrecordedCharges[]) {
  return unrecorded.map((row) => ({ model: row.model, provider: row.provider, upstream_model: row.upstreamModel, requests: row.requests, charged_rub: formatRub(row.chargedUnits) }));
}
