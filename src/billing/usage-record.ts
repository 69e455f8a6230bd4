// The usage record: one row of usage_records per billable operation (chat, media, job), saying
// what its charge was for. Declared once here: the charge envelope builds it, the settle writes it
// with the charge (hold-statements.ts, usage-outbox.ts), the batched inserter writes the
// uncharged ones, and `gateway usage` and `gateway reconcile` read its columns back.

/** A row of the usage_records table. */
export interface UsageRecord {
  request_id: string;
  account_id: string;
  key_id: string;
  endpoint: string;
  model: string;
  provider: string;
  upstream_model: string;
  status: 'completed' | 'aborted' | 'failed';
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cost_units: number;
  estimated: boolean;
  latency_ms: number;
  ttft_ms: number | null;
  finish_reason: string | null;
  created_at: number;
  /** Media units of a media or job charge: images returned, characters of speech, seconds of audio or video charged (absent: 0, usageRecordDefaults). */
  images?: number;
  characters?: number;
  audio_seconds?: number;
  video_seconds?: number;
}

/** A charged operation's record before the settle: its cost_units is the charge the settle computes. */
export type UsageOfCharge = Omit<UsageRecord, 'cost_units'>;

/** The table's columns, in the order every writer lists them. */
export const usageRecordColumns: readonly (keyof UsageRecord)[] = [
  'request_id',
  'account_id',
  'key_id',
  'endpoint',
  'model',
  'provider',
  'upstream_model',
  'status',
  'input_tokens',
  'cached_input_tokens',
  'cache_write_input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cost_units',
  'estimated',
  'latency_ms',
  'ttft_ms',
  'finish_reason',
  'created_at',
  'images',
  'characters',
  'audio_seconds',
  'video_seconds',
];

/**
 * SQL for the columns a stored record may leave out (absent or null in its JSON): a record
 * written before the media units existed, or by an older process, reads 0 for each.
 */
export const usageRecordDefaults: Readonly<Record<string, string>> = { images: '0', characters: '0', audio_seconds: '0', video_seconds: '0' };

/** Who was charged, for what, by whom: the part of a record the charge envelope knows from its hold. */
export interface UsageOwner {
  readonly requestId: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly model: string;
}

/** What an operation did, as the pipeline measured it; every unit it does not name is 0. */
export interface UsageFacts {
  /** The operation: a dialect's name (chat), images, speech, videos, audio/music… */
  readonly endpoint: string;
  readonly provider?: string;
  readonly upstreamModel?: string;
  readonly status?: UsageRecord['status'];
  readonly inputTokens?: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
  readonly outputTokens?: number;
  readonly reasoningTokens?: number;
  /** The tokens were counted by the gateway, not reported by the upstream. */
  readonly estimated?: boolean;
  readonly latencyMs?: number;
  readonly ttftMs?: number | null;
  readonly finishReason?: string | null;
  readonly images?: number;
  readonly characters?: number;
  readonly audioSeconds?: number;
  readonly videoSeconds?: number;
}

/** The one builder of a usage record. `createdAt`: the process clock, as the ledger row of its charge. */
export function buildUsageRecord(owner: UsageOwner, facts: UsageFacts, createdAt: number): UsageOfCharge {
  return {
    request_id: owner.requestId,
    account_id: owner.accountId,
    key_id: owner.keyId,
    endpoint: facts.endpoint,
    model: owner.model,
    provider: facts.provider ?? '',
    upstream_model: facts.upstreamModel ?? '',
    status: facts.status ?? 'completed',
    input_tokens: facts.inputTokens ?? 0,
    cached_input_tokens: facts.cachedInputTokens ?? 0,
    cache_write_input_tokens: facts.cacheWriteInputTokens ?? 0,
    output_tokens: facts.outputTokens ?? 0,
    reasoning_tokens: facts.reasoningTokens ?? 0,
    estimated: facts.estimated ?? false,
    latency_ms: facts.latencyMs ?? 0,
    ttft_ms: facts.ttftMs ?? null,
    finish_reason: facts.finishReason ?? null,
    created_at: createdAt,
    images: facts.images ?? 0,
    characters: facts.characters ?? 0,
    audio_seconds: facts.audioSeconds ?? 0,
    video_seconds: facts.videoSeconds ?? 0,
  };
}
