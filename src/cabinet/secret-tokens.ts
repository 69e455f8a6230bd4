// The cabinet's bearer secrets: a readable prefix (gwl_ login link, gws_ session cookie, gwa_
// admin token, gwe_ email link, gwi_ sign-up invite code, gwt_ Telegram link, gwf_ file download link) and 256 random bits in base64url. Only their sha256 is stored (like
// api_keys.hash), so a copy of the database opens nothing. Pure.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type SecretPrefix = 'gwl_' | 'gws_' | 'gwa_' | 'gwe_' | 'gwi_' | 'gwt_' | 'gwf_';

export function newSecret(prefix: SecretPrefix): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether `presented` looks like a secret of this kind (checked before any lookup: a wrong one costs nothing). */
export function isSecretOf(prefix: SecretPrefix, presented: unknown): presented is string {
  return typeof presented === 'string' && presented.length === prefix.length + 43 && presented.startsWith(prefix) && /^[A-Za-z0-9_-]+$/.test(presented.slice(prefix.length));
}

/** Compares two sha256 hex digests in constant time (the lookup must not be the only check). */
export function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** A random token for the CSRF header: 32 bytes as 64 hex characters. */
export function newCsrfToken(): string {
  return randomBytes(32).toString('hex');
}
