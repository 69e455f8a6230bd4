// The page a login link opens: `/cabinet/login#token=gwl_…`. The token lives in the fragment,
// which browsers never send to a server, so it stays out of logs, proxies and link previews.
// It is taken out of the address bar before anything else (no history entry, no reload
// re-using it), then POSTed to /cabinet/api/login, which sets the session cookie.
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { ErrorMessage, Loading, PageHeading } from '../components/common.js';
import { useI18n } from '../i18n/index.js';
import { hrefOf } from '../router.js';
import { logIn, tokenOfFragment, type Session } from '../session.js';
import { OutsideLogins } from './login-providers.js';

export function LoginPage(props: { onLogin: (session: Session) => void }) {
  const { t } = useI18n();
  const [token] = useState(() => tokenOfFragment(location.hash));
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    if (location.hash) history.replaceState(null, '', hrefOf('/login'));
    if (!token) return;
    logIn(token).then(props.onLogin, setError);
  }, []);
  return (
    <>
      <PageHeading title={t('login.title')} />
      {token && !error && <Loading />}
      {!token && <p>{t('login.noToken')}</p>}
      {error !== undefined &&
        (error instanceof ApiError && error.code === 'login_link_invalid' ? (
          <p class="error" role="alert">
            {t('login.invalid')}
          </p>
        ) : (
          <ErrorMessage error={error} />
        ))}
      {!token && <OutsideLogins />}
      {(!token || error !== undefined) && <HowToLogIn />}
    </>
  );
}

/** For a visitor without a session: where login links come from. */
export function HowToLogIn() {
  const { t } = useI18n();
  return (
    <section aria-labelledby="how-heading">
      <h2 id="how-heading">{t('login.howTitle')}</h2>
      <p>{t('login.howAccount')}</p>
      <pre>
        <code>gateway cabinet link --account NAME</code>
      </pre>
      <p>{t('login.howAdmin')}</p>
      <pre>
        <code>gateway cabinet link --admin</code>
      </pre>
    </section>
  );
}

export function SignedOutPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading title={t('login.signedOutTitle')} />
      <p>{t('login.signedOut')}</p>
      <OutsideLogins />
      <HowToLogIn />
    </>
  );
}
