// How cabinet sessions and admin tokens look in the CLI's JSON (never a secret or hash).
import type { AdminToken } from '../cabinet/admin-tokens.js';
import type { CabinetSession } from '../cabinet/sessions.js';
import { isoTime } from './base-command.js';

/** `live` unless revoked, past its absolute end (`expired`) or idle too long (`idle`). */
export function sessionStatus(session: CabinetSession, now: number, idleMs: number): 'live' | 'revoked' | 'expired' | 'idle' {
  if (session.revokedAt !== null) return 'revoked';
  if (now >= session.expiresAt) return 'expired';
  if (now >= session.lastSeenAt + idleMs) return 'idle';
  return 'live';
}

export function presentSession(session: CabinetSession, now: number, idleMs: number) {
  return {
    id: session.id,
    kind: session.kind,
    account_id: session.accountId,
    account_name: session.accountName,
    status: sessionStatus(session, now, idleMs),
    created_at: isoTime(session.createdAt),
    last_seen_at: isoTime(session.lastSeenAt),
    expires_at: isoTime(session.expiresAt),
    revoked_at: isoTime(session.revokedAt),
    user_agent: session.userAgent,
    address: session.address,
  };
}

export function presentAdminToken(adminToken: AdminToken) {
  return {
    id: adminToken.id,
    name: adminToken.name,
    prefix: adminToken.prefix,
    last4: adminToken.last4,
    scopes: [...adminToken.scopes],
    created_by: adminToken.createdBy,
    created_at: isoTime(adminToken.createdAt),
    last_used_at: isoTime(adminToken.lastUsedAt),
    revoked_at: isoTime(adminToken.revokedAt),
  };
}
