// The signed-in user's own settings, `/cabinet/profile`: a new password (the current one given
// again; the user's other sessions end, this one stays) and a new email address (a link goes
// to the new address, which becomes the sign-in address only once it is followed). A session
// opened by the operator's link belongs to no user: the page says there is nothing to change.
// With a Telegram bot, the user connects their Telegram here (telegram-bot.tsx).
import { useEffect, useState } from 'preact/hooks';
import { ErrorMessage, Loading, PageHeading } from '../components/common.js';
import { useAction } from '../data.js';
import { useI18n } from '../i18n/index.js';
import { changeEmail, changePassword } from '../password-account.js';
import { loadSession, type Session } from '../session.js';
import { AccountError } from './account-error.js';
import { TelegramBotSection } from './telegram-bot.js';

export function ProfilePage() {
  const { t } = useI18n();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    loadSession().then(setSession, setError);
  }, []);
  return (
    <>
      <PageHeading title={t('password.profile.title')} />
      <ErrorMessage error={error} />
      {session === undefined && error === undefined && <Loading />}
      {session === undefined ? null : session?.user ? (
        <>
          <ChangePasswordForm />
          <ChangeEmailForm />
          <TelegramBotSection />
        </>
      ) : (
        <p>{t('password.profile.linkSession')}</p>
      )}
    </>
  );
}

function ChangePasswordForm() {
  const { t } = useI18n();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [ended, setEnded] = useState<number | undefined>(undefined);
  const { busy, error, run } = useAction();
  return (
    <section aria-labelledby="change-password-heading">
      <h2 id="change-password-heading">{t('password.profile.passwordTitle')}</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          setEnded(undefined);
          void run(async () => {
            const { sessions_ended } = await changePassword(current, next);
            setEnded(sessions_ended);
            setCurrent('');
            setNext('');
          });
        }}
      >
        <label>
          {t('password.profile.current')}
          <input type="password" name="current" autoComplete="current-password" required maxLength={200} value={current} onInput={(event) => setCurrent(event.currentTarget.value)} />
        </label>
        <label>
          {t('password.profile.new')}
          <input
            type="password"
            name="new"
            autoComplete="new-password"
            required
            minLength={10}
            maxLength={200}
            value={next}
            aria-describedby="new-password-help"
            onInput={(event) => setNext(event.currentTarget.value)}
          />
        </label>
        <p id="new-password-help" class="muted small">
          {t('password.passwordHelp')}
        </p>
        <AccountError error={error} fields={{ current: t('password.profile.current'), new: t('password.profile.new') }} />
        {ended !== undefined && (
          <p role="status" data-testid="password-changed">
            {t('password.profile.passwordChanged', { count: ended })}
          </p>
        )}
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {t('password.profile.changePassword')}
          </button>
        </div>
      </form>
    </section>
  );
}

function ChangeEmailForm() {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [sentTo, setSentTo] = useState<string | undefined>(undefined);
  const { busy, error, run } = useAction();
  return (
    <section aria-labelledby="change-email-heading">
      <h2 id="change-email-heading">{t('password.profile.emailTitle')}</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          setSentTo(undefined);
          void run(async () => {
            await changeEmail(email, password);
            setSentTo(email.trim());
            setPassword('');
          });
        }}
      >
        <label>
          {t('password.profile.newEmail')}
          <input type="email" name="email" autoComplete="email" required maxLength={320} value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </label>
        <label>
          {t('password.profile.confirmPassword')}
          <input type="password" name="password" autoComplete="current-password" required maxLength={200} value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
        </label>
        <AccountError error={error} fields={{ email: t('password.profile.newEmail'), password: t('password.profile.confirmPassword') }} />
        {sentTo !== undefined && (
          <p role="status" data-testid="email-change-sent">
            {t('password.profile.emailSent', { email: sentTo })}
          </p>
        )}
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {t('password.profile.changeEmail')}
          </button>
        </div>
      </form>
    </section>
  );
}
