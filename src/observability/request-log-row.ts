// The request log's row of a request that was answered, built in one place for every door: the
// HTTP chain (src/http/middleware/request-context.ts) and the Telegram bot's calls
// (src/bot/bot-call.ts), so the operator reads both alike. Pure.
import type { GatewayError } from '../errors/gateway-error.js';
import { unitsToSql } from '../util/money.js';
import type { RequestLogEntry } from './batched-inserter.js';
import type { RequestSource } from './request-source.js';

/** request_log.error_message holds this many characters at most. */
const maxLoggedErrorLength = 500;

const truncate = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

export interface AnsweredRequest {
  readonly requestId: string;
  readonly accountId: string | null;
  readonly keyId: string | null;
  readonly method: string;
  readonly route: string;
  readonly model: string | undefined;
  readonly status: number;
  readonly durationUs: number;
  /** When it was answered (services.now()). */
  readonly at: number;
  readonly provider: string | undefined;
  readonly chargedUnits: bigint;
  /** The refusal or failure it was answered with (in the body, or in the stream after its first byte). */
  readonly failure: GatewayError | undefined;
  readonly source: RequestSource;
}

export function requestLogRow(seen: AnsweredRequest): RequestLogEntry {
  const { failure } = seen;
  return {
    request_id: seen.requestId,
    account_id: seen.accountId,
    key_id: seen.keyId,
    method: seen.method,
    route: seen.route,
    model: seen.model ?? null,
    status: seen.status,
    duration_us: seen.durationUs,
    charged_units: unitsToSql(seen.chargedUnits),
    created_at: seen.at,
    provider: seen.provider ?? null,
    error_code: failure?.code ?? null,
    // As the client read it (an upstream's message already redacted), cut to the column.
    error_message: failure ? truncate(failure.message, maxLoggedErrorLength) : null,
    upstream_status: failure?.options.upstreamStatus ?? null,
    source: seen.source,
  };
}
