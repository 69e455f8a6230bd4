// Accounts: every account with its balance, held and available money and its state, as
// GET /admin/v1/accounts gives them (the whole list: the API does not page it), each name a
// link to the account's page; and the form that creates one (POST /admin/v1/accounts).
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorMessage, fieldOf, Link, Loading, PageHeading } from '../components/common.js';
import { useAction, useLoad } from '../data.js';
import { formatDateTime, formatRub } from '../format.js';
import { useI18n } from '../i18n/index.js';

/** An account as the admin API answers it (money as the ledger's exact strings). */
export interface AdminAccount {
  id: string;
  name: string;
  balance_rub: string;
  held_rub: string;
  available_rub: string;
  created_at: string;
  state: 'enabled' | 'disabled';
  disabled_at: string | null;
  disabled_reason: string | null;
}

/** The console's address of an account's page. */
export function accountPath(id: string): string {
  return `/console/accounts/${encodeURIComponent(id)}`;
}

export function AccountsPage() {
  const { t, language } = useI18n();
  const accounts = useLoad(() => api<{ data: AdminAccount[] }>('/admin/v1/accounts'), []);
  const [created, setCreated] = useState<AdminAccount | undefined>(undefined);
  return (
    <>
      <PageHeading title={t('console.accounts.title')} />
      <CreateAccount
        onCreated={(account) => {
          setCreated(account);
          accounts.reload();
        }}
      />
      {created && (
        <p role="status">
          {t('console.accounts.created', { name: created.name })} <Link to={accountPath(created.id)}>{t('console.accounts.open', { name: created.name })}</Link>
        </p>
      )}
      <section aria-labelledby="accounts-heading">
        <h2 id="accounts-heading">{t('console.accounts.list')}</h2>
        <ErrorMessage error={accounts.error} />
        {accounts.loading && !accounts.data && <Loading />}
        {accounts.data &&
          (accounts.data.data.length === 0 ? (
            <p>{t('console.accounts.empty')}</p>
          ) : (
            <div class="table-scroll">
              <table class="accounts">
                <thead>
                  <tr>
                    <th scope="col">{t('console.accounts.name')}</th>
                    <th scope="col">{t('console.accounts.id')}</th>
                    <th scope="col" class="number">
                      {t('console.accounts.balance')}
                    </th>
                    <th scope="col" class="number">
                      {t('console.accounts.held')}
                    </th>
                    <th scope="col" class="number">
                      {t('console.accounts.available')}
                    </th>
                    <th scope="col">{t('console.accounts.state')}</th>
                    <th scope="col">{t('console.accounts.createdAt')}</th>
                  </tr>
                </thead>
                <tbody>
                  {accounts.data.data.map((account) => (
                    <tr key={account.id} data-account-id={account.id}>
                      <td>
                        <Link to={accountPath(account.id)}>{account.name}</Link>
                      </td>
                      <td>
                        <code>{account.id}</code>
                      </td>
                      <td class="number">{formatRub(account.balance_rub, language)}</td>
                      <td class="number">{formatRub(account.held_rub, language)}</td>
                      <td class="number">{formatRub(account.available_rub, language)}</td>
                      <td>{t(account.state === 'enabled' ? 'console.accounts.enabled' : 'console.accounts.disabled')}</td>
                      <td>{formatDateTime(account.created_at, language)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
      </section>
    </>
  );
}

function CreateAccount(props: { onCreated: (account: AdminAccount) => void }) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const { busy, error, run } = useAction();
  const fields = { name: t('console.accounts.name') };
  return (
    <section aria-labelledby="create-account-heading">
      <h2 id="create-account-heading">{t('console.accounts.create')}</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            props.onCreated(await api<AdminAccount>('/admin/v1/accounts', { method: 'POST', body: { name: name.trim() } }));
            setName('');
          });
        }}
      >
        <label>
          {t('console.accounts.name')}
          <input
            type="text"
            name="name"
            value={name}
            required
            maxLength={200}
            autocomplete="off"
            aria-describedby="account-name-help"
            aria-invalid={fieldOf(error, fields) === 'name' ? true : undefined}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </label>
        <p id="account-name-help" class="muted small">
          {t('console.accounts.nameHelp')}
        </p>
        <ErrorMessage error={error} fields={fields} />
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {t('console.accounts.createButton')}
          </button>
        </div>
      </form>
    </section>
  );
}
