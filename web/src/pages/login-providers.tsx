// The login page's buttons for outside logins: one per OpenID Connect provider of
// cabinet.oidc, and Telegram's when cabinet.telegram_login is set (GET /cabinet/api/login-options).
import type { LoginOptions } from '../session.js';

export function LoginProviders(_props: { options: LoginOptions }) {
  return null;
}
