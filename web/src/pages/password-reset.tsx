// A forgotten password: `/cabinet/forgot` asks for the address and says the same whether or
// not it has an account; the email's link opens `/cabinet/reset#token=gwe_…` (the token in the
// fragment, taken out of the address bar at once, as login links are), which sets the new
// password. Every session of the user ends then, this browser's too: the page sends them to sign in.
import { useEffect, useState } from 'preact/hooks';
import { Link, PageHeading } from '../components/common.js';
import { useAction } from '../data.js';
import { useI18n } from '../i18n/index.js';
import { confirmPasswordReset, requestPasswordReset } from '../password-account.js';
import { hrefOf } from '../router.js';
import { tokenOfFragment } from '../session.js';
import { AccountError } from './account-error.js';

export function ForgotPasswordPage() {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | undefined>(undefined);
  const { busy, error, run } = useAction();
  return (
    <>
      <PageHeading title={t('password.forgot.title')} />
      {sentTo !== undefined ? (
        <p role="status" data-testid="reset-sent">
          {t('password.forgot.sent', { email: sentTo })}
        </p>
      ) : (
        <form
          class="stacked"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => {
              await requestPasswordReset(email);
              setSentTo(email.trim());
            });
          }}
        >
          <p>{t('password.forgot.intro')}</p>
          <label>
            {t('password.email')}
            <input type="email" name="email" autoComplete="username" required maxLength={320} value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
          </label>
          <AccountError error={error} fields={{ email: t('password.email') }} />
          <div>
            <button type="submit" class="primary" disabled={busy}>
              {t('password.forgot.submit')}
            </button>
          </div>
        </form>
      )}
      <p>
        <Link to="/login">{t('password.login.goToLogin')}</Link>
      </p>
    </>
  );
}

export function ResetPasswordPage() {
  const { t } = useI18n();
  const [token] = useState(() => tokenOfFragment(location.hash));
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, run } = useAction();
  useEffect(() => {
    if (location.hash) history.replaceState(null, '', hrefOf('/reset'));
  }, []);
  let content;
  if (!token) content = <p>{t('password.reset.noToken')}</p>;
  else if (done) {
    content = (
      <p role="status" data-testid="reset-done">
        {t('password.reset.done')}
      </p>
    );
  } else {
    content = (
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            await confirmPasswordReset(token, password);
            setDone(true);
          });
        }}
      >
        <label>
          {t('password.reset.password')}
          <input
            type="password"
            name="password"
            autoComplete="new-password"
            required
            minLength={10}
            maxLength={200}
            value={password}
            aria-describedby="reset-password-help"
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        <p id="reset-password-help" class="muted small">
          {t('password.passwordHelp')}
        </p>
        <AccountError error={error} fields={{ password: t('password.reset.password') }} />
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {t('password.reset.submit')}
          </button>
        </div>
      </form>
    );
  }
  return (
    <>
      <PageHeading title={t('password.reset.title')} />
      {content}
      <p>
        <a href={hrefOf('/login')}>{t('password.login.goToLogin')}</a>
      </p>
    </>
  );
}
