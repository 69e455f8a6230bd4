// GET /v1/organization/usage/completions and /v1/organization/usage/embeddings, shaped like
// OpenAI's organization usage API: `start_time` (Unix seconds, required), `end_time`
// (exclusive, default now), `bucket_width` 1m | 1h | 1d (default 1d), `group_by=model` (or
// `group_by[]=model`), `limit` buckets a page (1d: default 7, at most 31; 1h: 24, 168; 1m: 60,
// 1440), `page` (the cursor of the previous answer's `next_page`). Every bucket of the range
// is listed, empty ones with `results: []`. What is counted is the simulator's UsageBook:
// what it would bill. Like every simulator endpoint it takes no key (OpenAI's wants an admin key).
import { sendJson, type SimContext } from './context.js';
import { invalid, SimError } from './errors.js';
import type { UsageBook, UsageCounts, UsageKind } from './usage-book.js';

const widths: Record<string, { seconds: number; defaultLimit: number; maxLimit: number }> = {
  '1m': { seconds: 60, defaultLimit: 60, maxLimit: 1440 },
  '1h': { seconds: 3600, defaultLimit: 24, maxLimit: 168 },
  '1d': { seconds: 86_400, defaultLimit: 7, maxLimit: 31 },
};

const kinds: Record<string, UsageKind> = {
  '/v1/organization/usage/completions': 'completions',
  '/v1/organization/usage/embeddings': 'embeddings',
};

/** The usage kind a path asks for, or undefined when it is not a usage path. */
export function usageKindOf(path: string): UsageKind | undefined {
  return Object.hasOwn(kinds, path) ? kinds[path] : undefined;
}

function integerParam(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  if (!/^\d{1,12}$/.test(text)) throw invalid(`Invalid '${name}': expected a non-negative integer, got '${text}'.`, name);
  return Number(text);
}

function result(kind: UsageKind, model: string | null, sums: UsageCounts): Record<string, unknown> {
  const owner = { project_id: null, user_id: null, api_key_id: null, model };
  if (kind === 'embeddings') return { object: 'organization.usage.embeddings.result', input_tokens: sums.inputTokens, num_model_requests: sums.requests, ...owner };
  return {
    object: 'organization.usage.completions.result',
    input_tokens: sums.inputTokens,
    output_tokens: sums.outputTokens,
    input_cached_tokens: sums.cachedInputTokens,
    input_audio_tokens: 0,
    output_audio_tokens: 0,
    num_model_requests: sums.requests,
    ...owner,
    batch: null,
  };
}

export function handleUsage(context: Pick<SimContext, 'response' | 'requestId' | 'watch'>, book: UsageBook, kind: UsageKind, query: URLSearchParams): void {
  const startTime = integerParam(query, 'start_time');
  if (startTime === undefined) throw new SimError(400, "Missing required parameter: 'start_time'.", 'start_time', 'invalid_request_error', 'missing_required_parameter');
  const endTime = integerParam(query, 'end_time') ?? Math.ceil(book.time() / 1000);
  if (endTime <= startTime) throw invalid("Invalid 'end_time': must be after 'start_time'.", 'end_time');
  const widthName = query.get('bucket_width') ?? '1d';
  const width = Object.hasOwn(widths, widthName) ? widths[widthName]! : undefined;
  if (!width) throw invalid(`Invalid 'bucket_width': expected one of 1m, 1h, 1d, got '${widthName}'.`, 'bucket_width');
  const limit = integerParam(query, 'limit') ?? width.defaultLimit;
  if (limit < 1 || limit > width.maxLimit) throw invalid(`Invalid 'limit': between 1 and ${width.maxLimit} for bucket_width ${widthName}.`, 'limit');
  const groupBy = [...query.getAll('group_by'), ...query.getAll('group_by[]')].flatMap((value) => value.split(','));
  const byModel = groupBy.includes('model');
  const page = query.get('page');
  const first = page === null ? startTime : Number(Buffer.from(page, 'base64url').toString('utf8'));
  if (!Number.isSafeInteger(first) || first < startTime || first >= endTime) throw invalid(`Invalid 'page': '${page}' is not a cursor of this query.`, 'page');

  const buckets: Record<string, unknown>[] = [];
  let bucketStart = first;
  for (; bucketStart < endTime && buckets.length < limit; bucketStart += width.seconds) {
    const bucketEnd = Math.min(bucketStart + width.seconds, endTime);
    const sums = book.between(kind, bucketStart * 1000, bucketEnd * 1000);
    let results: Record<string, unknown>[];
    if (byModel) results = [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([model, counts]) => result(kind, model, counts));
    else if (sums.size === 0) results = [];
    else {
      const total = { requests: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
      for (const counts of sums.values()) {
        total.requests += counts.requests;
        total.inputTokens += counts.inputTokens;
        total.cachedInputTokens += counts.cachedInputTokens;
        total.outputTokens += counts.outputTokens;
      }
      results = [result(kind, null, total)];
    }
    buckets.push({ object: 'bucket', start_time: bucketStart, end_time: bucketEnd, results });
  }
  const hasMore = bucketStart < endTime;
  sendJson(context, 200, { object: 'page', data: buckets, has_more: hasMore, next_page: hasMore ? Buffer.from(String(bucketStart)).toString('base64url') : null });
}
