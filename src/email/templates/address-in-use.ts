// Sent instead of a verification link when someone signs up with (or changes their email to)
// an address that already has an account: the HTTP answer is the same either way, so nobody
// learns from it which addresses exist; the owner of the address learns it here.
import type { UserLocale } from '../../users/users.js';
import type { RenderedEmail } from './email-template.js';

export function addressInUseEmail({ loginUrl, resetUrl, locale }: { loginUrl: string; resetUrl: string; locale: UserLocale }): RenderedEmail {
  if (locale === 'ru') {
    return {
      subject: 'Попытка регистрации с вашим адресом',
      text: `Здравствуйте!\n\nКто-то попытался зарегистрироваться с этим адресом почты, но у этого адреса уже есть учётная запись. Если это были вы, просто войдите:\n\n${loginUrl}\n\nЕсли вы забыли пароль, сбросьте его здесь:\n\n${resetUrl}\n\nЕсли это были не вы, ничего делать не нужно: ваша учётная запись не изменилась.\n`,
    };
  }
  return {
    subject: 'Someone tried to sign up with your address',
    text: `Hello,\n\nSomeone tried to sign up with this email address, but it already has an account. If this was you, just sign in:\n\n${loginUrl}\n\nIf you forgot your password, reset it here:\n\n${resetUrl}\n\nIf this was not you, there is nothing to do: your account has not changed.\n`,
  };
}
