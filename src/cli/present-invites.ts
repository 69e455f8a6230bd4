// How sign-up invite codes look in the CLI's and the admin API's JSON: never the code itself
// (only its last four characters), except in the answer that creates it.
import type { Invite } from '../users/invites.js';
import { isoTime } from './base-command.js';

/** `active` until used, revoked or past its end (`expired`). */
export function inviteStatus(invite: Invite, now: number): 'active' | 'used' | 'revoked' | 'expired' {
  if (invite.usedAt !== null) return 'used';
  if (invite.revokedAt !== null) return 'revoked';
  if (invite.expiresAt !== null && now >= invite.expiresAt) return 'expired';
  return 'active';
}

export function presentInvite(invite: Invite, now: number) {
  return {
    id: invite.id,
    last4: invite.last4,
    status: inviteStatus(invite, now),
    created_by: invite.createdBy,
    created_at: isoTime(invite.createdAt),
    expires_at: isoTime(invite.expiresAt),
    used_at: isoTime(invite.usedAt),
    used_by: invite.usedBy,
    revoked_at: isoTime(invite.revokedAt),
  };
}

/** A new invite with its code: the only time the code exists in full. */
export function presentCreatedInvite(made: { invite: Invite; code: string }, now: number) {
  return { ...presentInvite(made.invite, now), code: made.code };
}
