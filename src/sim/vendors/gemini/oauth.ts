// The OAuth token endpoint a Vertex service account's token_uri points at (`POST
// /gemini/token`): takes a jwt-bearer grant whose assertion is an RS256 JWT with the claims
// Google checks (iss = sub = an email, aud = this endpoint, scope cloud-platform, exp at most
// an hour after iat, not expired), and answers `{access_token, expires_in: 3599, token_type}`.
// The signature is not checked: the simulator does not know the account's public key. Issued
// tokens are what the Vertex paths accept as `Authorization: Bearer`; each simulator keeps its
// own, with the number of exchanges (GET /gemini/__sim/stats) so a test can see the cache work.
import { createHash } from 'node:crypto';
import type { PrefixCache } from '../../prefix-cache.js';
import { SimError } from '../../errors.js';
import { isRecord } from '../../guards.js';

export interface OAuthState {
  readonly issued: Set<string>;
  exchanges: number;
}

// Keyed by the simulator's prefix cache: one state per simulator instance.
const states = new WeakMap<PrefixCache, OAuthState>();

export function oauthStateOf(cache: PrefixCache): OAuthState {
  let state = states.get(cache);
  if (!state) states.set(cache, (state = { issued: new Set(), exchanges: 0 }));
  return state;
}

function oauthError(status: number, error: string, description: string): SimError {
  return Object.assign(new SimError(status, description), { oauth: { error, error_description: description } });
}

/** The answer to a token request (status and body), given its form body and this endpoint's URL. */
export function exchangeToken(state: OAuthState, form: string, endpointUrl: string, nowSeconds: number): { status: number; body: Record<string, unknown> } {
  try {
    const params = new URLSearchParams(form);
    if (params.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') throw oauthError(400, 'unsupported_grant_type', 'Invalid grant_type.');
    const claims = claimsOf(params.get('assertion') ?? '');
    const email = claims.iss;
    if (typeof email !== 'string' || !email.includes('@') || claims.sub !== undefined && claims.sub !== email) throw oauthError(400, 'invalid_grant', 'Invalid JWT: iss must be the service account email.');
    if (claims.aud !== endpointUrl) throw oauthError(400, 'invalid_grant', `Invalid JWT audience: expected ${endpointUrl}.`);
    if (claims.scope !== 'https://www.googleapis.com/auth/cloud-platform') throw oauthError(400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    const iat = claims.iat;
    const exp = claims.exp;
    if (typeof iat !== 'number' || typeof exp !== 'number' || exp - iat > 3600 || exp <= nowSeconds || iat > nowSeconds + 300) {
      throw oauthError(400, 'invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.');
    }
    state.exchanges++;
    const token = `ya29.sim-${createHash('sha256').update(`${email}:${state.exchanges}:${nowSeconds}`).digest('base64url').slice(0, 40)}`;
    state.issued.add(token);
    return { status: 200, body: { access_token: token, expires_in: 3599, token_type: 'Bearer' } };
  } catch (caught) {
    const oauth = (caught as { oauth?: Record<string, unknown> }).oauth;
    if (oauth) return { status: (caught as SimError).status, body: oauth };
    throw caught;
  }
}

function claimsOf(assertion: string): Record<string, unknown> {
  const [header, claims, signature] = assertion.split('.');
  if (!header || !claims || !signature) throw oauthError(400, 'invalid_grant', 'Invalid JWT: not three segments.');
  try {
    const head: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    if (!isRecord(head) || head.alg !== 'RS256') throw new Error('alg');
    const body: unknown = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8'));
    if (!isRecord(body)) throw new Error('claims');
    return body;
  } catch {
    throw oauthError(400, 'invalid_grant', 'Invalid JWT Signature.');
  }
}
