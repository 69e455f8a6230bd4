// The page an invitation link opens: `/cabinet/join#token=gwe_…` (POST
// /cabinet/api/members/invite emails it). As on the login page, the token is taken out of the
// address bar first. A signed-in user joins as themselves with one button, then may open the
// account; a visitor chooses a password (and a name) and is signed in to the account.
import { useState } from 'preact/hooks';
import { api, ApiError, setCsrfToken } from '../api.js';
import { ErrorMessage, PageHeading } from '../components/common.js';
import { useAction } from '../data.js';
import { useI18n } from '../i18n/index.js';
import { hrefOf } from '../router.js';
import { switchAccount, tokenOfFragment, type Session } from '../session.js';

interface Joined {
  readonly account: { readonly id: string; readonly name: string };
  readonly role: 'owner' | 'member';
  readonly new_user: boolean;
  readonly session: Session;
}

export function JoinPage(props: { session: Session | null; onSession: (session: Session) => void }) {
  const { t, language } = useI18n();
  const [token] = useState(() => {
    const found = tokenOfFragment(location.hash);
    if (location.hash) history.replaceState(null, '', hrefOf('/join'));
    return found;
  });
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [joined, setJoined] = useState<Joined | undefined>(undefined);
  const { busy, error, run } = useAction();
  const asUser = props.session !== null && props.session.kind === 'account' && props.session.user !== null;

  const join = (body: Record<string, string>) =>
    run(async () => {
      const answer = await api<Joined>('/cabinet/api/join', { method: 'POST', body: { token, ...body } });
      setCsrfToken(answer.session.csrf_token);
      if (answer.new_user) props.onSession(answer.session);
      else setJoined(answer);
    });

  const invalid = error instanceof ApiError && error.code === 'join_link_invalid';
  return (
    <>
      <PageHeading title={t('members.joinTitle')} />
      {!token && <p>{t('members.joinNoToken')}</p>}
      {invalid ? (
        <p class="error" role="alert">
          {t('members.joinInvalid')}
        </p>
      ) : (
        <ErrorMessage error={error} fields={{ password: t('members.password') }} />
      )}
      {token && joined && (
        <section aria-live="polite">
          <p>{t('members.joinedAs', { account: joined.account.name, role: t(joined.role === 'owner' ? 'members.roleOwner' : 'members.roleMember') })}</p>
          <button type="button" class="primary" onClick={() => void run(async () => props.onSession(await switchAccount(joined.account.id)))} disabled={busy}>
            {t('members.openAccount', { account: joined.account.name })}
          </button>
        </section>
      )}
      {token && !joined && !invalid && asUser && (
        <section>
          <p>{t('members.joinAsUser', { account: props.session!.account?.name ?? '' })}</p>
          <button type="button" class="primary" disabled={busy} onClick={() => void join({})}>
            {t('members.joinButton')}
          </button>
        </section>
      )}
      {token && !joined && !invalid && !asUser && (
        <form
          class="stacked"
          onSubmit={(event) => {
            event.preventDefault();
            const body: Record<string, string> = { password, locale: language };
            if (name.trim() !== '') body.name = name.trim();
            void join(body);
          }}
        >
          <p>{t('members.joinAsVisitor')}</p>
          <label>
            {t('members.name')}
            <input type="text" name="name" autoComplete="name" maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
          </label>
          <label>
            {t('members.password')}
            <input
              type="password"
              name="password"
              autoComplete="new-password"
              required
              minLength={10}
              maxLength={200}
              value={password}
              onInput={(event) => setPassword(event.currentTarget.value)}
              aria-describedby="password-help"
            />
          </label>
          <p id="password-help" class="muted small">
            {t('members.passwordHelp')}
          </p>
          <div>
            <button type="submit" class="primary" disabled={busy}>
              {t('members.joinButton')}
            </button>
          </div>
        </form>
      )}
    </>
  );
}
