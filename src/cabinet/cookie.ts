// The session cookie, `gateway_session`: HttpOnly (no script reads it), SameSite=Strict (no
// other site's page sends it), Path=/, and Secure when the cabinet's public URL is https or the
// request came over TLS. Written by hand rather than by Koa's cookies, which refuse a Secure
// cookie on a plain connection — the usual case behind a TLS-terminating proxy. Pure.

export const sessionCookieName = 'gateway_session';

/** The cookie's value in a Cookie header, or undefined. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === sessionCookieName) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/** Whether the cookie gets `Secure`: the public URL is https, or this request came over TLS. */
export function cookieIsSecure(publicUrl: string, overTls: boolean): boolean {
  return overTls || publicUrl.startsWith('https:');
}

const flags = (secure: boolean) => `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;

/** Set-Cookie for a new session, living until the session's absolute end. */
export function sessionCookie(token: string, expiresAt: number, now: number, secure: boolean): string {
  const maxAgeSeconds = Math.max(0, Math.floor((expiresAt - now) / 1000));
  return `${sessionCookieName}=${token}; ${flags(secure)}; Max-Age=${maxAgeSeconds}; Expires=${new Date(expiresAt).toUTCString()}`;
}

/** Set-Cookie that removes the cookie (logout). */
export function clearedSessionCookie(secure: boolean): string {
  return `${sessionCookieName}=; ${flags(secure)}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}
