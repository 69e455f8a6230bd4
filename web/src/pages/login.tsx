// The login page, `/cabinet/login`. Two ways in, as the gateway offers them (GET
// /cabinet/api/login-options):
// - a one-time link from the operator, `/cabinet/login#token=gwl_…`. The token lives in the
//   fragment, which browsers never send to a server, so it stays out of logs, proxies and link
//   previews. It is taken out of the address bar before anything else (no history entry, no
//   reload re-using it), then POSTed to /cabinet/api/login, which sets the session cookie;
// - email and password (when `email` is configured), with links to sign up (unless sign-up is
//   closed) and to reset a forgotten password; and the outside logins of login-providers.tsx.
// Nothing here names a command: a customer cannot run one (the operator's docs say how links are made).
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { ErrorMessage, Link, Loading, PageHeading } from '../components/common.js';
import { useAction } from '../data.js';
import { useI18n } from '../i18n/index.js';
import { logInWithPassword } from '../password-account.js';
import { hrefOf } from '../router.js';
import { loadLoginOptions, logIn, tokenOfFragment, type LoginOptions, type Session } from '../session.js';
import { AccountError } from './account-error.js';
import { LoginProviders } from './login-providers.js';

export function LoginPage(props: { onLogin: (session: Session) => void }) {
  const { t } = useI18n();
  const [token] = useState(() => tokenOfFragment(location.hash));
  const [error, setError] = useState<unknown>(undefined);
  const [options, setOptions] = useState<LoginOptions | undefined>(undefined);
  useEffect(() => {
    if (location.hash) history.replaceState(null, '', hrefOf('/login'));
    if (token) logIn(token).then(props.onLogin, setError);
    else loadLoginOptions().then(setOptions, setError);
  }, []);
  if (token) {
    return (
      <>
        <PageHeading title={t('login.title')} />
        {!error && <Loading />}
        {error !== undefined &&
          (error instanceof ApiError && error.code === 'login_link_invalid' ? (
            <p class="error" role="alert">
              {t('login.invalid')}
            </p>
          ) : (
            <ErrorMessage error={error} />
          ))}
        {error !== undefined && (
          <p>
            <a href={hrefOf('/login')}>{t('password.login.otherWays')}</a>
          </p>
        )}
      </>
    );
  }
  return (
    <>
      <PageHeading title={t('login.title')} />
      <ErrorMessage error={error} />
      {options === undefined && error === undefined && <Loading />}
      {options?.password && <PasswordLoginForm onLogin={props.onLogin} signup={options.signup} />}
      {options && <LoginProviders options={options} />}
      <HowToLogIn />
    </>
  );
}

function PasswordLoginForm(props: { onLogin: (session: Session) => void; signup: LoginOptions['signup'] }) {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  return (
    <section aria-labelledby="password-login-heading">
      <h2 id="password-login-heading">{t('password.login.title')}</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => props.onLogin(await logInWithPassword(email, password)));
        }}
      >
        <label>
          {t('password.email')}
          <input type="email" name="email" autoComplete="username" required maxLength={320} value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </label>
        <label>
          {t('password.password')}
          <input type="password" name="password" autoComplete="current-password" required maxLength={200} value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
        </label>
        <AccountError error={error} />
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {t('password.login.submit')}
          </button>
        </div>
      </form>
      <p>
        <Link to="/forgot">{t('password.login.forgot')}</Link>
      </p>
      {props.signup !== 'closed' && (
        <p>
          {t('password.login.noAccount')} <Link to="/signup">{t('password.login.signupLink')}</Link>
        </p>
      )}
    </section>
  );
}

/** For a visitor without a session: the operator's one-time link is one way in (how it is made is the operator's docs' business). */
export function HowToLogIn() {
  const { t } = useI18n();
  return (
    <section aria-labelledby="how-heading">
      <h2 id="how-heading">{t('login.howTitle')}</h2>
      <p>{t('login.howAccount')}</p>
    </section>
  );
}

export function SignedOutPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading title={t('login.signedOutTitle')} />
      <p>{t('login.signedOut')}</p>
      <p>
        <a href={hrefOf('/login')}>{t('password.login.goToLogin')}</a>
      </p>
    </>
  );
}
