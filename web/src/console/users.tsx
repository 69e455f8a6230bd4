// The users who log in to the cabinet (GET /admin/v1/users): every user with their address,
// state and last login, disabled or enabled with a confirming button (POST
// /admin/v1/users/:id/disable|enable: a disabled user's sessions end at once). The same table,
// with each user's role, shows an account's members on its page (?account=).
import { api } from '../api.js';
import { ErrorMessage, LoadedView, PageHeading } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { useAction, useLoad } from '../data.js';
import { formatDateTime } from '../format.js';
import { useI18n } from '../i18n/index.js';

interface AdminUser {
  readonly id: string;
  readonly email: string | null;
  readonly name: string | null;
  readonly state: 'enabled' | 'disabled';
  readonly created_at: string;
  readonly last_login_at: string | null;
  readonly role?: 'owner' | 'member';
}

export function UsersPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading title={t('console.users.title')} />
      <p>{t('console.users.intro')}</p>
      <UsersTable headingId="users-heading" heading={t('console.users.list')} />
    </>
  );
}

/** The users (of one account when `accountId` is given, with their roles), each with its disable or enable button. */
export function UsersTable(props: { accountId?: string; headingId: string; heading: string }) {
  const { t, language } = useI18n();
  const path = props.accountId === undefined ? '/admin/v1/users' : `/admin/v1/users?account=${encodeURIComponent(props.accountId)}`;
  const users = useLoad(() => api<{ data: AdminUser[] }>(path), [path]);
  return (
    <section aria-labelledby={props.headingId}>
      <h2 id={props.headingId}>{props.heading}</h2>
      <LoadedView loaded={users}>
        {(list) =>
          list.data.length === 0 ? (
            <p class="muted">{t('console.users.empty')}</p>
          ) : (
            <div class="table-scroll" role="region" tabIndex={0} aria-labelledby={props.headingId}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('members.email')}</th>
                    <th scope="col">{t('members.name')}</th>
                    {props.accountId !== undefined && <th scope="col">{t('members.role')}</th>}
                    <th scope="col">{t('console.accounts.state')}</th>
                    <th scope="col">{t('console.users.lastLogin')}</th>
                    <th scope="col">{t('common.actions')}</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.map((user) => (
                    <tr key={user.id} data-user={user.email ?? user.id}>
                      <td>
                        {user.email ?? '—'}
                        <br />
                        <code class="small">{user.id}</code>
                      </td>
                      <td>{user.name ?? '—'}</td>
                      {props.accountId !== undefined && <td>{t(user.role === 'owner' ? 'members.roleOwner' : 'members.roleMember')}</td>}
                      <td>{t(user.state === 'enabled' ? 'console.accounts.enabled' : 'console.accounts.disabled')}</td>
                      <td>{user.last_login_at === null ? '—' : formatDateTime(user.last_login_at, language)}</td>
                      <td>
                        <UserState user={user} onChanged={users.reload} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </LoadedView>
    </section>
  );
}

function UserState(props: { user: AdminUser; onChanged: () => void }) {
  const { t } = useI18n();
  const { busy, error, run } = useAction();
  const enabled = props.user.state === 'enabled';
  const who = props.user.email ?? props.user.id;
  return (
    <>
      <ConfirmButton
        plain={!enabled}
        question={t(enabled ? 'console.users.disableConfirm' : 'console.users.enableConfirm', { who })}
        onConfirmed={() =>
          run(async () => {
            await api(`/admin/v1/users/${encodeURIComponent(props.user.id)}/${enabled ? 'disable' : 'enable'}`, { method: 'POST' });
            props.onChanged();
          })
        }
      >
        {t(enabled ? 'console.users.disable' : 'console.users.enable')}
        <span class="visually-hidden"> {who}</span>
      </ConfirmButton>
      {busy ? null : <ErrorMessage error={error} />}
    </>
  );
}
