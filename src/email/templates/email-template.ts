// What every email template is: a subject and a plain-text body in the reader's language
// (the user's locale, which the page sends at sign-up). Plain text only: a link in a text
// email works in every client, and there is no markup to escape or to be flagged as spam.
import type { UserLocale } from '../../users/users.js';

export interface RenderedEmail {
  readonly subject: string;
  readonly text: string;
}

/** How long a link stays valid, written the reader's way ("1 hour", "1 ч"), from cabinet.email_link_ttl. */
export function linkLifetime(ttlMs: number, locale: UserLocale): string {
  const minutes = Math.max(1, Math.round(ttlMs / 60_000));
  if (minutes % 60 === 0) {
    const hours = minutes / 60;
    return locale === 'ru' ? `${hours} ч` : `${hours} hour${hours === 1 ? '' : 's'}`;
  }
  return locale === 'ru' ? `${minutes} мин` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

export interface LinkEmail {
  /** The link to follow (its token in the fragment). */
  readonly link: string;
  readonly ttlMs: number;
  readonly locale: UserLocale;
}
