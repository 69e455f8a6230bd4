// OpenAI's organization usage API: GET `${baseUrl}/organization/usage/completions` and
// `/organization/usage/embeddings` with start_time/end_time in Unix seconds, daily buckets
// grouped by model, paged by `next_page`. Each page's buckets are summed per model: the period
// is what reconciliation compares, not the days. Periods are widened to whole seconds (floor the
// start, ceil the end). OpenAI answers these only to an organization admin key, which the
// provider config does not carry, so the openai vendor does not declare this API (vendor.ts);
// the simulator serves the same shape and does.
import { errorFromResponse } from '../shared/upstream-errors.js';
import { arrayOf, countOf, isObject, stringOf } from '../shared/json.js';
import { bearer, invalidResponse, joinUrl, jsonOf } from '../shared/wire.js';
import type { MediaOperation } from '../media-types.js';
import type { ReportedUsage, UsageApi, UsagePage, UsageQuery } from '../usage-types.js';

/** Daily buckets; 31 is the most a page of daily buckets may hold. */
const bucketsPerPage = 31;

function usageReport(kind: 'completions' | 'embeddings'): MediaOperation<UsageQuery, UsagePage> {
  return {
    build: (query, target) => {
      const parameters = new URLSearchParams({
        start_time: String(Math.floor(query.since / 1000)),
        end_time: String(Math.ceil(query.until / 1000)),
        bucket_width: '1d',
        group_by: 'model',
        limit: String(bucketsPerPage),
      });
      if (query.page !== undefined) parameters.set('page', query.page);
      return { url: `${joinUrl(target.baseUrl, `/organization/usage/${kind}`)}?${parameters}`, method: 'GET', headers: bearer(target.apiKey) };
    },
    parse: (response) => {
      const body = jsonOf(response, `usage/${kind}`);
      if (!isObject(body)) throw invalidResponse(`the upstream's usage/${kind} answer is not a JSON object`);
      const byModel = new Map<string, { requests: number; inputTokens: number; cachedInputTokens: number; outputTokens: number }>();
      for (const bucket of arrayOf(body.data)) {
        if (!isObject(bucket)) throw invalidResponse(`a bucket of the upstream's usage/${kind} answer is not an object`);
        for (const result of arrayOf(bucket.results)) {
          if (!isObject(result)) throw invalidResponse(`a result of the upstream's usage/${kind} answer is not an object`);
          // Without a model (not grouped by it) the usage cannot be told apart: named "(any model)".
          const model = stringOf(result.model) ?? '(any model)';
          const sums = byModel.get(model) ?? { requests: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
          sums.requests += countOf(result.num_model_requests);
          sums.inputTokens += countOf(result.input_tokens);
          sums.cachedInputTokens += countOf(result.input_cached_tokens);
          sums.outputTokens += countOf(result.output_tokens);
          byModel.set(model, sums);
        }
      }
      const usage: ReportedUsage[] = [...byModel].map(([upstreamModel, sums]) => ({ upstreamModel, ...sums }));
      const nextPage = body.has_more === true ? stringOf(body.next_page) : undefined;
      return nextPage === undefined ? { usage } : { usage, nextPage };
    },
  };
}

/** Completions: chat on every protocol. (OpenAI also reports embeddings, images and audio apart; not read yet.) */
export const openaiUsageApi: UsageApi = {
  covers: ['chat'],
  reports: [usageReport('completions')],
  parseError: errorFromResponse,
};
