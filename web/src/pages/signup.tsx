// Sign-up by email, `/cabinet/signup`: email, password (and the invite code when sign-up needs
// one). The answer is the same whether or not the address already has an account (the server
// sends that address a notice instead of a link), so the page says the same: check your mail.
// The page's language goes with the request: the emails are written in it. A visitor who came
// by a customer's referral link (`/cabinet/signup?ref=CODE`) signs up with its code.
import { useEffect, useState } from 'preact/hooks';
import { ErrorMessage, Link, Loading, PageHeading } from '../components/common.js';
import { useAction } from '../data.js';
import { useI18n } from '../i18n/index.js';
import { signUp } from '../password-account.js';
import { loadLoginOptions, type LoginOptions } from '../session.js';
import { AccountError } from './account-error.js';
import { LoginProviders } from './login-providers.js';

/** The referral code of the address (`?ref=CODE`), if any. */
function referralOfAddress(): string | undefined {
  const code = new URLSearchParams(location.search).get('ref')?.trim();
  return code ? code.slice(0, 200) : undefined;
}

export function SignupPage() {
  const { t, language } = useI18n();
  const [referral] = useState(referralOfAddress);
  const [options, setOptions] = useState<LoginOptions | undefined>(undefined);
  const [loadError, setLoadError] = useState<unknown>(undefined);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [inviteCode, setInviteCode] = useState('');
  const [sentTo, setSentTo] = useState<string | undefined>(undefined);
  const { busy, error, run } = useAction();
  useEffect(() => {
    loadLoginOptions().then(setOptions, setLoadError);
  }, []);
  const fields = { email: t('password.email'), password: t('password.password'), invite_code: t('password.signup.invite') };
  let content;
  if (loadError !== undefined) content = <ErrorMessage error={loadError} />;
  else if (options === undefined) content = <Loading />;
  else if (options.signup === 'closed' || !options.password) content = <p>{t('password.error.signupClosed')}</p>;
  else if (sentTo !== undefined) {
    content = (
      <p role="status" data-testid="signup-sent">
        {t('password.signup.sent', { email: sentTo })}
      </p>
    );
  } else {
    content = (
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            await signUp({ email, password, locale: language, ...(options.signup === 'invite' ? { invite_code: inviteCode.trim() } : {}), ...(referral === undefined ? {} : { referral }) });
            setSentTo(email.trim());
            setPassword('');
          });
        }}
      >
        <label>
          {t('password.email')}
          <input type="email" name="email" autoComplete="email" required maxLength={320} value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </label>
        <label>
          {t('password.password')}
          <input
            type="password"
            name="password"
            autoComplete="new-password"
            required
            minLength={10}
            maxLength={200}
            value={password}
            aria-describedby="signup-password-help"
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        <p id="signup-password-help" class="muted small">
          {t('password.passwordHelp')}
        </p>
        {options.signup === 'invite' && (
          <>
            <label>
              {t('password.signup.invite')}
              <input type="text" name="invite_code" required maxLength={200} value={inviteCode} aria-describedby="signup-invite-help" onInput={(event) => setInviteCode(event.currentTarget.value)} />
            </label>
            <p id="signup-invite-help" class="muted small">
              {t('password.signup.inviteHelp')}
            </p>
          </>
        )}
        <AccountError error={error} fields={fields} />
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {t('password.signup.submit')}
          </button>
        </div>
      </form>
    );
  }
  return (
    <>
      <PageHeading title={t('password.signup.title')} />
      {content}
      {options && options.signup !== 'closed' && <LoginProviders options={options} />}
      <p>
        {t('password.signup.haveAccount')} <Link to="/login">{t('password.login.goToLogin')}</Link>
      </p>
    </>
  );
}
