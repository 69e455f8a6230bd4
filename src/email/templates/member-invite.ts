// The email that invites someone to act for an account (POST /cabinet/api/members/invite), in
// Russian or English: the language of the page the owner invited from (the invited person may
// have no user yet, so no locale of their own). The link carries its token in the fragment, as
// login links do, so it never reaches a server's access log.
import type { EmailMessage } from '../mailer.js';
import type { MemberRole } from '../../users/account-members.js';
import type { UserLocale } from '../../users/users.js';

export interface MemberInvitation {
  readonly to: string;
  readonly accountName: string;
  readonly role: MemberRole;
  readonly link: string;
  readonly expiresAt: number;
  readonly locale: UserLocale;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

const wording = {
  en: {
    subject: (account: string) => `You are invited to the account "${account}"`,
    role: { owner: 'an owner', member: 'a member' },
    body: (account: string, role: string) => `You are invited to act for the account "${account}" on this AI gateway as ${role}.`,
    action: 'Accept the invitation',
    expiry: (at: string) => `The link works once, until ${at} UTC.`,
    ignore: 'If you did not expect this email, ignore it: nothing happens without the link.',
  },
  ru: {
    subject: (account: string) => `Приглашение в аккаунт «${account}»`,
    role: { owner: 'владелец', member: 'участник' },
    body: (account: string, role: string) => `Вас пригласили в аккаунт «${account}» на этом AI-шлюзе. Роль: ${role}.`,
    action: 'Принять приглашение',
    expiry: (at: string) => `Ссылка действует один раз, до ${at} UTC.`,
    ignore: 'Если вы не ждали этого письма, просто не открывайте ссылку: без неё ничего не произойдёт.',
  },
} as const;

export function memberInviteEmail(invitation: MemberInvitation): EmailMessage {
  const words = wording[invitation.locale];
  const expiry = words.expiry(new Date(invitation.expiresAt).toISOString().slice(0, 16).replace('T', ' '));
  const body = words.body(invitation.accountName, words.role[invitation.role]);
  return {
    to: invitation.to,
    subject: words.subject(invitation.accountName),
    text: `${body}\n\n${words.action}: ${invitation.link}\n\n${expiry}\n${words.ignore}\n`,
    html: `<p>${escapeHtml(body)}</p><p><a href="${escapeHtml(invitation.link)}">${escapeHtml(words.action)}</a></p><p>${escapeHtml(expiry)}<br>${escapeHtml(words.ignore)}</p>`,
  };
}
