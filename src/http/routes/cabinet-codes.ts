// POST /cabinet/api/codes/redeem {code}: a member of the account redeems a code the operator
// handed out; the answer is what was credited and the balance after it (docs/payments.md,
// "Redemption codes"). Every attempt, good or bad, counts against two limits of
// cabinet.code_attempts_per_minute, through the project's rate limiter (shared through Redis):
// one per account (a session cannot try codes faster by opening more sessions) and one per
// client address (one client cannot try them faster through many accounts). With 100 random
// bits per code the limits are not what keeps codes from being guessed; they keep a client from
// hammering the lookup, and a wrong code is answered like an unknown one (code_invalid).
import { z } from 'zod';
import { CacheUnavailableError, reconnectCapMs } from '../../cache/redis-connection.js';
import { presentRedemption } from '../../cli/present-codes.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import { validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';

const redeemBody = z.strictObject({ code: z.string().min(1).max(100) });

/** Admits one attempt under a limit, else 429 code_rate_limited with Retry-After. */
async function admitCodeAttempt(services: ServerServices, bucket: string, what: string): Promise<void> {
  const limit = services.cabinet.settings.codeAttemptsPerMinute;
  let decision;
  try {
    decision = await services.rateLimiter.consume(bucket, limit);
  } catch (error) {
    if (!(error instanceof CacheUnavailableError)) throw error;
    throw new GatewayError('rate_limiter_unavailable', 'The rate limiter is unavailable; nothing was done. Retry shortly.', {
      headers: { 'retry-after': String(Math.ceil(reconnectCapMs / 1000)) },
    });
  }
  if (!decision.allowed) {
    const retryAfterSeconds = Math.min(60, Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
    throw new GatewayError('code_rate_limited', `Too many attempts to redeem a code ${what}: ${limit} per minute. Retry in ${retryAfterSeconds} s.`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

export const redeemCabinetCode: Handler = async (ctx, services) => {
  const accountId = ctx.state.apiKey!.accountId;
  await admitCodeAttempt(services, `cabinet-code-address:${ctx.clientAddresses.of(ctx.req) ?? 'unknown'}`, 'from this address');
  await admitCodeAttempt(services, `cabinet-code-account:${accountId}`, 'for this account');
  const body = validate(redeemBody, ctx.request.body, 'body');
  const redemption = await services.codes.redeem({ code: body.code, accountId, userId: ctx.state.session!.userId, actor: ctx.state.actor!, requestId: ctx.state.requestId });
  ctx.set('cache-control', 'no-store');
  ctx.body = presentRedemption(redemption);
};
