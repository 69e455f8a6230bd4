// The login page's buttons for outside logins: one per OpenID Connect provider of
// cabinet.oidc, and Telegram's when cabinet.telegram_login is set (GET /cabinet/api/login-options).
// Each is a plain link the browser follows (docs/cabinet.md, "OpenID Connect" and "Telegram"):
// - OIDC: /cabinet/api/oidc/<name>/start[?invite=…] → the provider → back to the gateway,
//   which sets the session cookie and sends the browser to the cabinet;
// - Telegram: Telegram's own login page, oauth.telegram.org/auth (the widget's script cannot
//   run under the cabinet's CSP), which returns here with `#tgAuthResult=<base64 JSON>`; this
//   component hands that signed data to /cabinet/api/telegram/callback, where the signature is
//   checked. The invite code (sign-up by invitation) waits in sessionStorage meanwhile.
// A refused login comes back as /cabinet/login?login_error=<reason>, worded here.
import { useEffect, useState } from 'preact/hooks';
import { useI18n, type MessageKey } from '../i18n/index.js';
import { loadLoginOptions, type LoginOptions } from '../session.js';

const inviteStorageKey = 'gateway.invite';

const errorMessages: Record<string, MessageKey> = {
  signup_closed: 'loginProviders.error.signupClosed',
  invite_required: 'loginProviders.error.inviteRequired',
  invite_invalid: 'loginProviders.error.inviteInvalid',
  user_disabled: 'loginProviders.error.userDisabled',
  no_account: 'loginProviders.error.noAccount',
  login_expired: 'loginProviders.error.expired',
  provider_unknown: 'loginProviders.error.providerUnknown',
  telegram_invalid: 'loginProviders.error.telegramInvalid',
  telegram_stale: 'loginProviders.error.telegramStale',
  rate_limited: 'loginProviders.error.rateLimited',
};

function storedInvite(): string {
  try {
    return sessionStorage.getItem(inviteStorageKey) ?? '';
  } catch {
    return '';
  }
}

function storeInvite(code: string): void {
  try {
    if (code) sessionStorage.setItem(inviteStorageKey, code);
    else sessionStorage.removeItem(inviteStorageKey);
  } catch {
    // Storage refused (private mode): a Telegram sign-up then goes without the code.
  }
}

/** The signed data of `#tgAuthResult=<base64 JSON>`, as the query of the gateway's callback; undefined when absent or unreadable. */
export function telegramResultOfFragment(hash: string): URLSearchParams | undefined {
  const encoded = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash).get('tgAuthResult');
  if (!encoded) return undefined;
  try {
    const base64 = encoded.replace(/-/g, '+').replace(/_/g, '/');
    const json = new TextDecoder().decode(Uint8Array.from(atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4)), (char) => char.charCodeAt(0)));
    const data = JSON.parse(json) as Record<string, unknown>;
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(data)) if (typeof value === 'string' || typeof value === 'number') query.set(name, String(value));
    return query;
  } catch {
    return undefined;
  }
}

function telegramAuthUrl(botId: string): string {
  const origin = location.origin;
  return `https://oauth.telegram.org/auth?${new URLSearchParams({ bot_id: botId, origin, return_to: `${origin}/cabinet/login`, request_access: 'write' })}`;
}

export function LoginProviders(props: { options: LoginOptions }) {
  const { t } = useI18n();
  const { options } = props;
  const [invite, setInvite] = useState(storedInvite);
  const code = invite.trim();
  const withInvite = (href: string) => (options.signup === 'invite' && code ? `${href}?${new URLSearchParams({ invite: code })}` : href);
  if (options.oidc.length === 0 && options.telegram === null) return null;
  return (
    <section aria-labelledby="providers-heading">
      <h2 id="providers-heading">{t('loginProviders.title')}</h2>
      {options.signup === 'invite' && (
        <p>
          <label for="invite-code">{t('loginProviders.invite')}</label>{' '}
          <input id="invite-code" name="invite" autocomplete="off" spellcheck={false} value={invite} onInput={(event) => setInvite(event.currentTarget.value)} aria-describedby="invite-hint" />
          <br />
          <small id="invite-hint">{t('loginProviders.inviteHint')}</small>
        </p>
      )}
      <ul class="login-providers">
        {options.oidc.map((provider) => (
          <li key={provider.name}>
            <a class="button" href={withInvite(`/cabinet/api/oidc/${encodeURIComponent(provider.name)}/start`)}>
              {t('loginProviders.with', { name: provider.label })}
            </a>
          </li>
        ))}
        {options.telegram !== null && (
          <li>
            <a class="button" href={telegramAuthUrl(options.telegram.bot_id)} onClick={() => storeInvite(options.signup === 'invite' ? code : '')}>
              {t('loginProviders.telegram')}
            </a>
          </li>
        )}
      </ul>
    </section>
  );
}

/**
 * What the login page shows for outside logins: a refused login's message, Telegram's answer
 * handed on to the gateway, and the providers' buttons once the options are known.
 */
export function OutsideLogins() {
  const { t } = useI18n();
  // Read while rendering: the login page clears the fragment in its first effect.
  const [telegramResult] = useState(() => telegramResultOfFragment(location.hash));
  const [loginError] = useState(() => new URLSearchParams(location.search).get('login_error'));
  const [options, setOptions] = useState<LoginOptions | null>(null);
  useEffect(() => {
    if (telegramResult) {
      const invite = storedInvite();
      storeInvite('');
      if (invite) telegramResult.set('invite', invite);
      location.replace(`/cabinet/api/telegram/callback?${telegramResult}`);
      return;
    }
    loadLoginOptions().then(setOptions, () => setOptions(null));
  }, []);
  const message = loginError === null ? undefined : (errorMessages[loginError] ?? 'loginProviders.error.failed');
  return (
    <>
      {message !== undefined && (
        <p class="error" role="alert">
          {t(message)}
        </p>
      )}
      {options && <LoginProviders options={options} />}
    </>
  );
}
