// Reads what a vendor reports it billed over a period through its usage API (usage-types.ts):
// every report of the API, every page of each, summed per upstream model. Sent by the media
// transport (one GET each, the upstream's own pool and timeout).
import type { Upstream } from './http-transport.js';
import { runMediaOperation } from './media-transport.js';
import { UpstreamError } from '../types.js';
import type { ReportedUsage, UsageApi } from '../usage-types.js';

/** A vendor paging without end is cut off here (31 daily buckets a page: over 80 years). */
const maxPages = 1_000;

export async function readReportedUsage(upstream: Upstream, api: UsageApi, period: { since: number; until: number }): Promise<Map<string, ReportedUsage>> {
  const byModel = new Map<string, ReportedUsage>();
  const target = { model: '', baseUrl: upstream.baseUrl, apiKey: upstream.apiKey };
  for (const report of api.reports) {
    let page: string | undefined;
    for (let pages = 0; ; pages++) {
      if (pages === maxPages) throw new UpstreamError(`upstream "${upstream.name}" answered more than ${maxPages} pages of usage`, 502, false);
      const answer = await runMediaOperation(upstream, report, { ...period, ...(page === undefined ? {} : { page }) }, target, AbortSignal.timeout(upstream.timeoutMs), api.parseError);
      for (const usage of answer.usage) {
        const before = byModel.get(usage.upstreamModel);
        byModel.set(
          usage.upstreamModel,
          before
            ? {
                upstreamModel: usage.upstreamModel,
                requests: before.requests + usage.requests,
                inputTokens: before.inputTokens + usage.inputTokens,
                cachedInputTokens: before.cachedInputTokens + usage.cachedInputTokens,
                outputTokens: before.outputTokens + usage.outputTokens,
              }
            : usage,
        );
      }
      if (answer.nextPage === undefined) break;
      page = answer.nextPage;
    }
  }
  return byModel;
}
