// Vertex AI credentials: a service account's JSON key (in the environment variable the
// provider's `service_account_env` names) is exchanged for an OAuth access token — an RS256
// JWT signed with the account's private key (iss/sub = client_email, aud = token_uri, scope
// cloud-platform, valid one hour) POSTed to the account's token_uri as a jwt-bearer grant.
// The token is kept per upstream and key until a minute before it expires, and concurrent
// requests share one exchange (shared/exchanged-tokens.ts). An API-key provider gets its key back as is.
import { createSign } from 'node:crypto';
import { request } from '../../util/http-client.js';
import { type ExchangedToken, ExchangedTokens } from '../shared/exchanged-tokens.js';
import type { CredentialSource } from '../shared/http-transport.js';
import { isObject, stringOf } from '../shared/json.js';
import { isRetryableStatus } from '../shared/upstream-errors.js';
import { UpstreamError } from '../types.js';
import { parseGeminiError } from './errors.js';
import { isVertex } from './settings.js';

export const cloudPlatformScope = 'https://www.googleapis.com/auth/cloud-platform';
const defaultTokenUri = 'https://oauth2.googleapis.com/token';
const lifetimeSeconds = 3600;
/** Tokens are renewed this long before Google says they expire. */
const renewBeforeMs = 60_000;

interface ServiceAccount {
  readonly clientEmail: string;
  readonly privateKey: string;
  readonly privateKeyId?: string;
  readonly tokenUri: string;
}

const tokens = new ExchangedTokens(renewBeforeMs);

/** Vendor.credentials of `gemini` providers. */
export async function geminiCredentials(source: CredentialSource, signal: AbortSignal, now: () => number = Date.now): Promise<string> {
  if (!isVertex(source.settings)) return source.apiKey ?? '';
  if (typeof source.settings.project !== 'string') throw configError(source.name, 'has auth vertex but no project');
  const json = source.secrets.service_account;
  if (!json) throw configError(source.name, 'has auth vertex but the environment variable its service_account_env names is empty');
  return tokens.get(`${source.name}\u0000${json}`, () => exchangeToken(parseServiceAccount(json, source.name), source, signal, now), now());
}

/** The service account key's fields; a key that is not one is the operator's to fix (not retryable). */
export function parseServiceAccount(json: string, provider: string): ServiceAccount {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw configError(provider, 'has a service account key that is not JSON');
  }
  const clientEmail = isObject(value) ? stringOf(value.client_email) : undefined;
  const privateKey = isObject(value) ? stringOf(value.private_key) : undefined;
  if (!isObject(value) || !clientEmail || !privateKey) throw configError(provider, 'has a service account key without client_email and private_key');
  return { clientEmail, privateKey, privateKeyId: stringOf(value.private_key_id), tokenUri: stringOf(value.token_uri) ?? defaultTokenUri };
}

/** The signed assertion (RFC 7523) for a service account, issued at `nowSeconds`. */
export function signedAssertion(account: ServiceAccount, nowSeconds: number): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = encode({ alg: 'RS256', typ: 'JWT', ...(account.privateKeyId ? { kid: account.privateKeyId } : {}) });
  const claims = encode({ iss: account.clientEmail, sub: account.clientEmail, aud: account.tokenUri, scope: cloudPlatformScope, iat: nowSeconds, exp: nowSeconds + lifetimeSeconds });
  const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(account.privateKey).toString('base64url');
  return `${header}.${claims}.${signature}`;
}

async function exchangeToken(account: ServiceAccount, source: CredentialSource, signal: AbortSignal, now: () => number): Promise<ExchangedToken> {
  const startedAt = now();
  const assertion = signedAssertion(account, Math.floor(startedAt / 1000));
  const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString();
  let status: number;
  let text: string;
  try {
    const response = await request(account.tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      dispatcher: source.dispatcher,
      signal,
      headersTimeout: source.timeoutMs,
      bodyTimeout: source.timeoutMs,
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    throw new UpstreamError(`the Vertex token exchange of provider "${source.name}" failed: ${(error as Error).message}`, 0, true, 'token_exchange');
  }
  if (status < 200 || status >= 300) throw tokenError(status, text, source.name);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const token = isObject(body) ? stringOf(body.access_token) : undefined;
  if (!isObject(body) || !token) throw new UpstreamError(`the Vertex token endpoint of provider "${source.name}" answered no access_token`, 502, true, 'token_exchange');
  const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : lifetimeSeconds;
  return { value: token, expiresAt: startedAt + expiresIn * 1000 };
}

/** OAuth errors (`{error, error_description}`: a revoked key is `invalid_grant`) are the operator's: 401, final. */
function tokenError(status: number, text: string, provider: string): UpstreamError {
  try {
    const body: unknown = JSON.parse(text);
    if (isObject(body) && typeof body.error === 'string') {
      const retryable = isRetryableStatus(status);
      const description = stringOf(body.error_description) ?? body.error;
      return new UpstreamError(`the Vertex token exchange of provider "${provider}" was refused: ${description}`, retryable ? status : 401, retryable, body.error);
    }
  } catch {
    // Not JSON: read as a Google error below.
  }
  return parseGeminiError(status, text);
}

function configError(provider: string, problem: string): UpstreamError {
  return new UpstreamError(`provider "${provider}" ${problem}`, 401, false, 'vertex_configuration');
}

/** Forgets every cached token (tests). */
export function clearVertexTokens(): void {
  tokens.clear();
}
