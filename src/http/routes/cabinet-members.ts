// The account's members in the cabinet (docs/cabinet.md, "Members"):
// - GET /cabinet/api/members: everyone acting for the account and the invitations not yet
//   followed. Every member sees it (who else acts for the account); only owners change it.
// - POST /cabinet/api/members/invite {email, role, locale?} (owner): a single-use join link,
//   emailed when the gateway has `email`; without it the answer carries the link for the owner
//   to pass on (`link`), since nothing else could deliver it.
// - POST /cabinet/api/members/{user_id}/role {role} (owner), DELETE /cabinet/api/members/{user_id}
//   (owner): an account keeps at least one owner; removal ends the member's sessions on it.
// The logic is src/users/memberships.ts; every change is audited with the session's user.
import { z } from 'zod';
import { EmailSendError } from '../../email/mailer.js';
import { memberInviteEmail } from '../../email/templates/member-invite.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { memberRoles } from '../../users/account-members.js';
import type { MemberListing, PendingInvitation } from '../../users/memberships.js';
import { validate } from '../../validation/zod-details.js';
import type { Context, Handler } from '../state.js';

const inviteBody = z.strictObject({
  email: z.string().trim().max(320).pipe(z.email()),
  role: z.enum(memberRoles),
  locale: z.enum(['ru', 'en']).optional(),
});

const roleBody = z.strictObject({ role: z.enum(memberRoles) });

const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());

function presentMember(member: MemberListing, ctx: Context) {
  return {
    user_id: member.userId,
    email: member.email,
    name: member.name,
    role: member.role,
    joined_at: iso(member.joinedAt),
    disabled: member.disabledAt !== null,
    you: member.userId === ctx.state.session!.userId,
  };
}

const presentInvitation = (invitation: PendingInvitation) => ({ id: invitation.id, email: invitation.email, role: invitation.role, expires_at: iso(invitation.expiresAt) });

const accountOf = (ctx: Context) => ctx.state.apiKey!.accountId;

export const listMembers: Handler = async (ctx, services) => {
  const { memberships } = services.users;
  const accountId = accountOf(ctx);
  const [members, invitations] = await Promise.all([memberships.list(accountId), memberships.pendingInvitations(accountId)]);
  ctx.set('cache-control', 'no-store');
  ctx.body = { object: 'list', data: members.map((member) => presentMember(member, ctx)), invitations: invitations.map(presentInvitation) };
};

export const inviteMember: Handler = async (ctx, services) => {
  const body = validate(inviteBody, ctx.request.body, 'body');
  const accountId = accountOf(ctx);
  const account = await services.accounts.find(accountId);
  const mailer = services.users.mailer;
  const linkOf = (token: string) => `${services.cabinet.settings.publicUrl}/cabinet/join#token=${token}`;
  let invitation;
  try {
    invitation = await services.users.memberships.invite({ accountId, email: body.email, role: body.role, actor: ctx.state.actor! }, async ({ token, expiresAt }) => {
      if (mailer === undefined) return;
      await mailer.send(memberInviteEmail({ to: body.email.toLowerCase(), accountName: account.name, role: body.role, link: linkOf(token), expiresAt, locale: body.locale ?? 'en' }));
    });
  } catch (error) {
    if (error instanceof EmailSendError) throw new GatewayError('email_send_failed', `The invitation email could not be sent (${error.reason}); nothing was kept. Try again later.`);
    throw error;
  }
  ctx.status = 201;
  ctx.set('cache-control', 'no-store');
  ctx.body = {
    email: body.email.toLowerCase(),
    role: body.role,
    expires_at: iso(invitation.expiresAt),
    emailed: mailer !== undefined,
    // Only when no email went out: the owner passes the link on themselves.
    link: mailer === undefined ? linkOf(invitation.token) : null,
  };
};

export const changeMemberRole: Handler = async (ctx, services) => {
  const body = validate(roleBody, ctx.request.body, 'body');
  const userId = ctx.params.userId!;
  const { role, changed } = await services.users.memberships.changeRole({ accountId: accountOf(ctx), userId, role: body.role, actor: ctx.state.actor! });
  ctx.body = { user_id: userId, role, changed };
};

export const removeMember: Handler = async (ctx, services) => {
  const userId = ctx.params.userId!;
  const { sessionsEnded } = await services.users.memberships.remove({ accountId: accountOf(ctx), userId, actor: ctx.state.actor! });
  ctx.body = { user_id: userId, removed: true, sessions_ended: sessionsEnded };
};
