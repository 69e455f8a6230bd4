// Sent to the NEW address of an email change (POST /cabinet/api/email): the address changes
// only when this link is followed, which proves the new address is the user's.
import { linkLifetime, type LinkEmail, type RenderedEmail } from './email-template.js';

export function changeEmailEmail({ link, ttlMs, locale }: LinkEmail): RenderedEmail {
  const lifetime = linkLifetime(ttlMs, locale);
  if (locale === 'ru') {
    return {
      subject: 'Подтвердите новый адрес почты',
      text: `Здравствуйте!\n\nВ кабинете попросили сменить адрес почты на этот. Чтобы подтвердить смену, откройте ссылку:\n\n${link}\n\nСсылка действует ${lifetime} и открывается один раз. Если это были не вы, удалите письмо: адрес не изменится.\n`,
    };
  }
  return {
    subject: 'Confirm your new email address',
    text: `Hello,\n\nThe cabinet was asked to change its sign-in address to this one. To confirm the change, open this link:\n\n${link}\n\nThe link works once, for ${lifetime}. If this was not you, delete this email: nothing changes.\n`,
  };
}
