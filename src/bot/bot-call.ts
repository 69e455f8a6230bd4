// What the bot asks of the gateway goes through the pipeline in-process, as the account's bot
// key (purpose `bot`, src/cabinet/cabinet-key.ts), exactly as an API call with that key would:
// the key's expiry and scope are checked, its requests per minute counted, the request held,
// charged and recorded by the pipeline function itself (runChat, the media functions), and a
// request-log row with source `bot` written, so the operator's request log and the account's
// history show it like any other request. Feature handlers call `callAsBot` with the pipeline
// function to run; it gives them the key, a request id and the log fields the pipeline fills.
import type { ApiKey } from '../auth/api-keys.js';
import { assertScope } from '../auth/assert-scope.js';
import { assertKeyUsable } from '../auth/key-policy.js';
import type { Scope } from '../auth/scopes.js';
import type { AccountKeys } from '../cabinet/cabinet-key.js';
import { GatewayError } from '../errors/gateway-error.js';
import { toGatewayError } from '../errors/to-gateway-error.js';
import type { ServerServices } from '../services.js';
import { newRequestId } from '../util/ids.js';
import { unitsToSql } from '../util/money.js';

/** What a pipeline function needs of the call, and where it reports the model, provider and a failure after the first byte. */
export interface BotCall {
  readonly apiKey: ApiKey;
  readonly requestId: string;
  readonly log: { model?: string; provider?: string; failure?: GatewayError };
}

export interface BotCallOutcome {
  readonly chargedUnits: bigint;
}

/** request_log.error_message holds this many characters at most. */
const maxLoggedErrorLength = 500;

/**
 * Runs `run` as the account's bot key; `route` names the request in the request log (the /v1
 * route an API client would call for the same thing), `scope` the key scope it needs. A refusal
 * (a catalog GatewayError) is thrown after its row is recorded.
 */
export async function callAsBot<T extends BotCallOutcome>(
  services: ServerServices,
  keys: AccountKeys,
  accountId: string,
  request: { readonly route: string; readonly scope: Scope | null },
  run: (call: BotCall) => Promise<T>,
): Promise<T> {
  const requestId = newRequestId();
  const started = process.hrtime.bigint();
  const log: BotCall['log'] = {};
  let apiKey: ApiKey | undefined;
  let status = 200;
  let chargedUnits = 0n;
  try {
    apiKey = await keys.forAccount(accountId);
    services.apiKeys.noteUsed(apiKey.id);
    assertKeyUsable(apiKey, services.now(), undefined);
    if (request.scope !== null) assertScope(apiKey, request.scope);
    const decision = await services.rateLimiter.consume(apiKey.id, apiKey.rpm ?? services.config.rateLimit.requestsPerMinute);
    if (!decision.allowed) throw new GatewayError('rate_limit_exceeded', `Rate limit reached: ${decision.limit} requests per minute for this key.`);
    const outcome = await run({ apiKey, requestId, log });
    chargedUnits = outcome.chargedUnits;
    return outcome;
  } catch (error) {
    const refusal = toGatewayError(error, 'http');
    status = refusal?.status ?? 500;
    log.failure ??= refusal ?? new GatewayError('internal_error', `Internal error; quote request id ${requestId} to the operator.`);
    throw error;
  } finally {
    const durationUs = Number((process.hrtime.bigint() - started) / 1000n);
    services.metrics.countRequest(request.route, 'POST', status, durationUs / 1e6);
    if (chargedUnits > 0n) services.metrics.countCharge(log.model ?? 'none', Number(chargedUnits));
    const { failure } = log;
    services.requestLog.record({
      request_id: requestId,
      account_id: accountId,
      key_id: apiKey?.id ?? null,
      method: 'POST',
      route: request.route,
      model: log.model ?? null,
      status,
      duration_us: durationUs,
      charged_units: unitsToSql(chargedUnits),
      created_at: services.now(),
      provider: log.provider ?? null,
      error_code: failure?.code ?? null,
      error_message: failure ? failure.message.slice(0, maxLoggedErrorLength) : null,
      upstream_status: failure?.options.upstreamStatus ?? null,
      source: 'bot',
    });
  }
}
