// Kling's API token: a JWT (HS256) the client makes itself from an access key and a secret
// key — iss = the access key, valid from 5 s ago (clock skew) for 30 minutes. Pure: the time is
// given, so fixture tests can pin the token.
import { createHmac } from 'node:crypto';
import { UpstreamError } from '../types.js';

export interface KlingKeys {
  readonly accessKey: string;
  readonly secretKey: string;
}

/** How long a token is valid (Kling's published example: 30 minutes). */
export const klingTokenLifetimeSeconds = 1800;
/** A token is valid from this long before it was made, so a server clock slightly behind still takes it. */
const notBeforeSkewSeconds = 5;

/**
 * The provider's key, `ACCESS_KEY:SECRET_KEY` in the variable api_key_env names: one variable,
 * so a provider whose variable is unset is disabled like any other. Kling's keys are
 * alphanumeric, so the first colon separates them.
 */
export function klingKeys(apiKey: string | undefined): KlingKeys {
  const colon = apiKey?.indexOf(':') ?? -1;
  if (apiKey === undefined || colon <= 0 || colon === apiKey.length - 1) {
    throw new UpstreamError('the Kling provider needs its key as "ACCESS_KEY:SECRET_KEY" in the environment variable its api_key_env names', 401, false, 'authentication_error');
  }
  return { accessKey: apiKey.slice(0, colon), secretKey: apiKey.slice(colon + 1) };
}

function base64Url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/** The signed token for `nowSeconds` (Unix time), as Kling's reference makes it. */
export function klingJwt(keys: KlingKeys, nowSeconds: number): string {
  const header = base64Url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = base64Url(JSON.stringify({ iss: keys.accessKey, exp: nowSeconds + klingTokenLifetimeSeconds, nbf: nowSeconds - notBeforeSkewSeconds }));
  const signature = base64Url(createHmac('sha256', keys.secretKey).update(`${header}.${payload}`).digest());
  return `${header}.${payload}.${signature}`;
}
