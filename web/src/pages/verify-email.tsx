// The page an email's confirmation link opens, `/cabinet/verify#token=gwe_…`: a new account's
// address, or the new address of an email change. The token is taken out of the address bar
// first (as login links are), then POSTed once to /cabinet/api/verify-email.
import { useEffect, useState } from 'preact/hooks';
import { Loading, PageHeading } from '../components/common.js';
import { useI18n } from '../i18n/index.js';
import { followEmailLink } from '../password-account.js';
import { hrefOf } from '../router.js';
import { tokenOfFragment } from '../session.js';
import { AccountError } from './account-error.js';

export function VerifyEmailPage() {
  const { t } = useI18n();
  const [token] = useState(() => tokenOfFragment(location.hash));
  const [result, setResult] = useState<{ purpose: 'verify_email' | 'change_email'; email: string } | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    if (location.hash) history.replaceState(null, '', hrefOf('/verify'));
    if (token) followEmailLink(token).then(setResult, setError);
  }, []);
  return (
    <>
      <PageHeading title={t('password.verify.title')} />
      {!token && <p>{t('password.verify.noToken')}</p>}
      {token && result === undefined && error === undefined && <Loading />}
      <AccountError error={error} />
      {result && (
        <p role="status" data-testid="verify-done">
          {t(result.purpose === 'verify_email' ? 'password.verify.done' : 'password.verify.changed', { email: result.email })}
        </p>
      )}
      <p>
        <a href={hrefOf(result?.purpose === 'change_email' ? '/' : '/login')}>{t(result?.purpose === 'change_email' ? 'password.verify.toCabinet' : 'password.login.goToLogin')}</a>
      </p>
    </>
  );
}
