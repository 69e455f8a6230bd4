// One account in the console (reached from the accounts list): its money and state as
// GET /admin/v1/accounts/:id gives them, disable and enable (confirmed, with an optional
// reason), a top-up and an adjustment, its ledger with a refund per charge, and its API keys.
// Every figure is the API's.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorMessage, Figure, Link, Loading, PageHeading } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { useLoad } from '../data.js';
import { formatDateTime, formatRub } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { AccountKeys } from './account-keys.js';
import { AccountLedger } from './account-ledger.js';
import { MoneyForm } from './account-money.js';
import type { AdminAccount } from './accounts.js';
import { UsersTable } from './users.js';

export function AccountPage(props: { params: Record<string, string> }) {
  const { t, language } = useI18n();
  const id = props.params.id!;
  const account = useLoad(() => api<AdminAccount>(`/admin/v1/accounts/${encodeURIComponent(id)}`), [id]);
  const data = account.data;
  return (
    <>
      <p class="small">
        <Link to="/console/accounts">{t('console.accounts.back')}</Link>
      </p>
      <PageHeading title={data ? t('console.accounts.accountTitle', { name: data.name }) : t('console.accounts.account')} />
      <ErrorMessage error={account.error} />
      {account.loading && !data && <Loading />}
      {data && (
        <>
          <section aria-labelledby="money-heading">
            <h2 id="money-heading">{t('console.accounts.money')}</h2>
            <dl class="figures" data-testid="account-money">
              <Figure label={t('console.accounts.balance')} value={formatRub(data.balance_rub, language)} />
              <Figure label={t('console.accounts.held')} value={formatRub(data.held_rub, language)} />
              <Figure label={t('console.accounts.available')} value={formatRub(data.available_rub, language)} />
            </dl>
            <dl class="facts">
              <dt>{t('console.accounts.id')}</dt>
              <dd>
                <code>{data.id}</code>
              </dd>
              <dt>{t('console.accounts.createdAt')}</dt>
              <dd>{formatDateTime(data.created_at, language)}</dd>
            </dl>
          </section>
          <AccountState account={data} onChanged={account.reload} />
          <MoneyForm accountId={data.id} operation="topup" onDone={account.reload} />
          <MoneyForm accountId={data.id} operation="adjust" onDone={account.reload} />
          <AccountLedger accountId={data.id} balanceRub={data.balance_rub} onRefunded={account.reload} />
          <AccountKeys accountId={data.id} />
          <UsersTable accountId={data.id} headingId="account-members-heading" heading={t('console.users.members')} />
        </>
      )}
    </>
  );
}

/**
 * Enabled or disabled (its keys refused from their next request), and the button that flips it:
 * the shared ConfirmButton asks first, like every other action an operator should not take by a
 * slip, and keeps itself disabled while the request runs.
 */
function AccountState(props: { account: AdminAccount; onChanged: () => void }) {
  const { t, language } = useI18n();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const { account } = props;
  const enabled = account.state === 'enabled';
  const flip = async () => {
    setError(undefined);
    try {
      const body = reason.trim() === '' ? {} : { reason: reason.trim() };
      await api(`/admin/v1/accounts/${encodeURIComponent(account.id)}/${enabled ? 'disable' : 'enable'}`, { method: 'POST', body });
      setReason('');
      props.onChanged();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section aria-labelledby="state-heading">
      <h2 id="state-heading">{t('console.accounts.state')}</h2>
      <p data-testid="account-state">{enabled ? t('console.accounts.enabledText') : t('console.accounts.disabledText', { date: formatDateTime(account.disabled_at, language) })}</p>
      {!enabled && account.disabled_reason && <p>{t('console.accounts.disabledReason', { reason: account.disabled_reason })}</p>}
      {/* Enter in the reason field must not flip the state unasked: the form only holds the field. */}
      <form class="stacked" onSubmit={(event) => event.preventDefault()}>
        <label>
          {t('console.accounts.stateReason')}
          <input type="text" name="reason" value={reason} maxLength={500} autocomplete="off" onInput={(event) => setReason(event.currentTarget.value)} />
        </label>
        <ErrorMessage error={error} fields={{ reason: t('console.accounts.stateReason') }} />
        <div>
          <ConfirmButton question={t(enabled ? 'console.accounts.disableConfirm' : 'console.accounts.enableConfirm', { name: account.name })} plain={!enabled} onConfirmed={flip}>
            {t(enabled ? 'console.accounts.disable' : 'console.accounts.enable')}
          </ConfirmButton>
        </div>
      </form>
    </section>
  );
}
