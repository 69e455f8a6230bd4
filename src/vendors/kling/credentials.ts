// Vendor.credentials of Kling: the JWT sent as `Authorization: Bearer`, made from the
// provider's access and secret keys and cached per upstream until a minute before it expires
// (one signature per half hour, not one per request). Nothing is fetched: the token is signed
// here.
import type { CredentialSource } from '../shared/http-transport.js';
import { klingJwt, klingKeys, klingTokenLifetimeSeconds } from './jwt.js';

/** A token is renewed this long before it expires, so none expires on its way to Kling. */
const renewBeforeMs = 60_000;

const tokens = new Map<string, { readonly token: string; readonly expiresAtMs: number }>();

export async function klingCredentials(source: CredentialSource, _signal: AbortSignal, now: () => number = Date.now): Promise<string> {
  const keys = klingKeys(source.apiKey);
  // Keyed by upstream and key, so a key rotated in the environment (a restart) is never served an old token.
  const cacheKey = `${source.name}\u0000${source.apiKey}`;
  const nowMs = now();
  const cached = tokens.get(cacheKey);
  if (cached && cached.expiresAtMs - renewBeforeMs > nowMs) return cached.token;
  const nowSeconds = Math.floor(nowMs / 1000);
  const token = klingJwt(keys, nowSeconds);
  tokens.set(cacheKey, { token, expiresAtMs: (nowSeconds + klingTokenLifetimeSeconds) * 1000 });
  return token;
}
