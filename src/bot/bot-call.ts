// What the bot asks of the gateway goes through the pipeline in-process, as the account's bot
// key (purpose `bot`, src/cabinet/cabinet-key.ts), exactly as an API call with that key would:
// the key's gate (src/auth/key-gate.ts: expiry, scope, tokens per minute, requests in flight,
// requests per minute) is passed, the request held,
// charged and recorded by the pipeline function itself (runChat, the media functions), and a
// request-log row with source `bot` written, so the operator's request log and the account's
// history show it like any other request. Feature handlers call `callAsBot` with the pipeline
// function to run; it gives them the key, a request id and the log fields the pipeline fills.
import type { ApiKey } from '../auth/api-keys.js';
import { passKeyGate } from '../auth/key-gate.js';
import type { ReleaseSlot } from '../auth/key-limits.js';
import type { Scope } from '../auth/scopes.js';
import type { AccountKeys } from '../cabinet/cabinet-key.js';
import { GatewayError } from '../errors/gateway-error.js';
import { toGatewayError } from '../errors/to-gateway-error.js';
import { requestLogRow } from '../observability/request-log-row.js';
import type { ServerServices } from '../services.js';
import { newRequestId } from '../util/ids.js';

/** What a pipeline function needs of the call, and where it reports the model, provider and a failure after the first byte. */
export interface BotCall {
  readonly apiKey: ApiKey;
  readonly requestId: string;
  readonly log: { model?: string; provider?: string; failure?: GatewayError };
}

export interface BotCallOutcome {
  readonly chargedUnits: bigint;
}

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
  let release: ReleaseSlot | undefined;
  let status = 200;
  let chargedUnits = 0n;
  try {
    apiKey = await keys.forAccount(accountId);
    services.apiKeys.noteUsed(apiKey.id);
    // The gate an API call with this key passes (src/auth/key-gate.ts); no address: the bot's
    // calls come from no client, so a key with an IP allowlist refuses them.
    release = await passKeyGate(services, apiKey, { scope: request.scope, requestId, address: undefined });
    const outcome = await run({ apiKey, requestId, log });
    chargedUnits = outcome.chargedUnits;
    return outcome;
  } catch (error) {
    const refusal = toGatewayError(error, 'http');
    status = refusal?.status ?? 500;
    log.failure ??= refusal ?? new GatewayError('internal_error', `Internal error; quote request id ${requestId} to the operator.`);
    throw error;
  } finally {
    // The in-flight slot goes back whatever ended the call (an answer, a refusal, a failure).
    await release?.();
    const durationUs = Number((process.hrtime.bigint() - started) / 1000n);
    services.metrics.countRequest(request.route, 'POST', status, durationUs / 1e6);
    if (chargedUnits > 0n) services.metrics.countCharge(log.model ?? 'none', Number(chargedUnits));
    services.requestLog.record(
      requestLogRow({
        requestId,
        accountId,
        keyId: apiKey?.id ?? null,
        method: 'POST',
        route: request.route,
        model: log.model,
        status,
        durationUs,
        at: services.now(),
        provider: log.provider,
        chargedUnits,
        failure: log.failure,
        source: 'bot',
      }),
    );
  }
}
