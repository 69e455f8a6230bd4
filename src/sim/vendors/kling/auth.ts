// The simulated Kling's check of `Authorization: Bearer <jwt>`: an HS256 JWT whose iss is the
// access key, valid now (nbf ≤ now < exp). Its signature is verified when a test registered
// the secret of that access key (registerKlingSecret); other access keys get the shape and
// time checks only, so a keyless demo still works. Failures are Kling's 1001–1004 codes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { KlingSimError } from './envelope.js';

const secrets = new Map<string, string>();

/** Makes the simulator verify the signature of tokens whose iss is `accessKey` (tests). */
export function registerKlingSecret(accessKey: string, secretKey: string): void {
  secrets.set(accessKey, secretKey);
}

function decodePart(part: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The access key of a valid token; a KlingSimError (HTTP 401) otherwise. */
export function checkKlingToken(authorization: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): string {
  if (!authorization) throw new KlingSimError(1001, 'Authorization is empty');
  const match = /^Bearer (\S+)$/.exec(authorization);
  const parts = match?.[1]!.split('.') ?? [];
  const header = parts.length === 3 ? decodePart(parts[0]!) : undefined;
  const payload = parts.length === 3 ? decodePart(parts[1]!) : undefined;
  if (!header || !payload || header.alg !== 'HS256' || typeof payload.iss !== 'string' || payload.iss === '') throw new KlingSimError(1002, 'Authorization is invalid');
  if (typeof payload.exp !== 'number' || typeof payload.nbf !== 'number') throw new KlingSimError(1002, 'Authorization is invalid: exp and nbf are required');
  const secret = secrets.get(payload.iss);
  if (secret !== undefined) {
    const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
    const given = Buffer.from(parts[2]!, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new KlingSimError(1000, 'Authentication failed: the signature does not match');
  }
  if (payload.nbf > nowSeconds) throw new KlingSimError(1003, 'Authorization is not yet valid');
  if (payload.exp <= nowSeconds) throw new KlingSimError(1004, 'Authorization has expired');
  return payload.iss;
}
