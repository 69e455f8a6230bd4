// The link that sets a new password (POST /cabinet/api/password-reset).
import { linkLifetime, type LinkEmail, type RenderedEmail } from './email-template.js';

export function resetPasswordEmail({ link, ttlMs, locale }: LinkEmail): RenderedEmail {
  const lifetime = linkLifetime(ttlMs, locale);
  if (locale === 'ru') {
    return {
      subject: 'Сброс пароля',
      text: `Здравствуйте!\n\nКто-то (надеемся, вы) попросил сбросить пароль от кабинета. Чтобы задать новый пароль, откройте ссылку:\n\n${link}\n\nСсылка действует ${lifetime} и открывается один раз. После смены пароля все открытые сеансы закроются. Если вы ничего не просили, удалите это письмо: пароль останется прежним.\n`,
    };
  }
  return {
    subject: 'Reset your password',
    text: `Hello,\n\nSomeone (we hope you) asked to reset the password of your cabinet. To set a new password, open this link:\n\n${link}\n\nThe link works once, for ${lifetime}. Setting a new password signs out every open session. If you did not ask for this, delete this email: your password stays as it is.\n`,
  };
}
