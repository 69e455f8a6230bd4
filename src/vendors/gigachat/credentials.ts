// GigaChat's OAuth exchange (Vendor.credentials). The provider's key (api_key_env) is the
// "authorization key" Sber issues: base64 of client_id:client_secret. It is exchanged for an
// access token valid 30 minutes:
//   POST https://ngw.devices.sberbank.ru:9443/api/v2/oauth
//   Authorization: Basic <authorization key>, RqUID: <uuid4>, body scope=GIGACHAT_API_PERS
//   → {"access_token": "…", "expires_at": <unix ms>}
// The token is kept per upstream and key until a minute before it expires, and one exchange
// in flight serves every request that needs it meanwhile (shared/exchanged-tokens.ts).
import { randomUUID } from 'node:crypto';
import { errors as undiciErrors, request } from '../../util/http-client.js';
import { type ExchangedToken, ExchangedTokens } from '../shared/exchanged-tokens.js';
import type { CredentialSource } from '../shared/http-transport.js';
import { UpstreamError } from '../types.js';
import { isObject, stringOf } from '../shared/json.js';
import { errorFromResponse } from '../shared/upstream-errors.js';

export const defaultAuthUrl = 'https://ngw.devices.sberbank.ru:9443/api/v2/oauth';
export const gigachatScopes = ['GIGACHAT_API_PERS', 'GIGACHAT_API_B2B', 'GIGACHAT_API_CORP'] as const;

/** A token is renewed this long before it expires, so that no request carries one that lapses on the way. */
export const tokenRenewalMarginMs = 60_000;

/** By upstream name, key, endpoint and scope. */
const tokens = new ExchangedTokens(tokenRenewalMarginMs);

export async function gigachatCredentials(source: CredentialSource, signal: AbortSignal, now: () => number = Date.now): Promise<string> {
  if (!source.apiKey) throw new UpstreamError(`upstream "${source.name}" has no GigaChat authorization key`, 401, false, 'missing_credentials');
  // A token belongs to the key, the endpoint that issued it and the scope it was issued for.
  const cacheKey = [source.name, source.apiKey, authUrlOf(source), scopeOf(source)].join('\u0000');
  return tokens.get(cacheKey, () => exchangeToken(source, signal), now());
}

/** Forgets every cached token (tests that restart an OAuth server under the same name). */
export function forgetGigachatTokens(): void {
  tokens.clear();
}

function scopeOf(source: CredentialSource): string {
  return stringOf(source.settings.scope) ?? 'GIGACHAT_API_PERS';
}

function authUrlOf(source: CredentialSource): string {
  return stringOf(source.settings.auth_url) ?? defaultAuthUrl;
}

async function exchangeToken(source: CredentialSource, signal: AbortSignal): Promise<ExchangedToken> {
  const scope = scopeOf(source);
  const url = authUrlOf(source);
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, {
      method: 'POST',
      dispatcher: source.dispatcher,
      signal,
      headersTimeout: source.timeoutMs,
      bodyTimeout: source.timeoutMs,
      headers: {
        authorization: `Basic ${source.apiKey!}`,
        RqUID: randomUUID(),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ scope }).toString(),
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    const timedOut = error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError;
    throw new UpstreamError(`upstream "${source.name}" token exchange failed: ${(error as Error).message}`, timedOut ? 504 : 0, true, timedOut ? 'timeout' : 'connection_error');
  }
  const text = await response.body.text();
  if (response.statusCode < 200 || response.statusCode >= 300) {
    const error = errorFromResponse(response.statusCode, text);
    throw new UpstreamError(`upstream "${source.name}" refused the token exchange: ${error.message}`, error.status, error.retryable, error.upstreamType ?? 'oauth_error');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const token = isObject(body) ? stringOf(body.access_token) : undefined;
  const expiresAt = isObject(body) && typeof body.expires_at === 'number' ? body.expires_at : undefined;
  if (!token || expiresAt === undefined) throw new UpstreamError(`upstream "${source.name}" answered the token exchange without access_token and expires_at`, 502, false, 'invalid_response');
  return { value: token, expiresAt };
}
