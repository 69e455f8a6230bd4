// The link that confirms a new account's address (sign-up; a login with the right password and
// an unconfirmed address sends a fresh one).
import { linkLifetime, type LinkEmail, type RenderedEmail } from './email-template.js';

export function verifyEmail({ link, ttlMs, locale }: LinkEmail): RenderedEmail {
  const lifetime = linkLifetime(ttlMs, locale);
  if (locale === 'ru') {
    return {
      subject: 'Подтвердите адрес почты',
      text: `Здравствуйте!\n\nЧтобы подтвердить этот адрес и войти в кабинет, откройте ссылку:\n\n${link}\n\nСсылка действует ${lifetime} и открывается один раз. Если вы не регистрировались, просто удалите это письмо.\n`,
    };
  }
  return {
    subject: 'Confirm your email address',
    text: `Hello,\n\nTo confirm this address and sign in to the cabinet, open this link:\n\n${link}\n\nThe link works once, for ${lifetime}. If you did not sign up, delete this email.\n`,
  };
}
