// The account's members (GET /cabinet/api/members): who acts for the account, in which role,
// and the invitations not yet followed. Owners invite by email with a role, change roles and
// remove members; a member sees the list and none of these controls (the server refuses them
// anyway: 403 owner_required). A user of several accounts switches between them here.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { CopyButton, ErrorMessage, LoadedView, PageHeading } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { useAction, useLoad } from '../data.js';
import { formatDateTime } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { navigate } from '../router.js';
import { switchAccount } from '../session.js';
import { isOwner, useSession } from '../session-context.js';

type Role = 'owner' | 'member';

interface Member {
  readonly user_id: string;
  readonly email: string | null;
  readonly name: string | null;
  readonly role: Role;
  readonly joined_at: string;
  readonly disabled: boolean;
  readonly you: boolean;
}

interface MemberList {
  readonly data: readonly Member[];
  readonly invitations: readonly { readonly id: string; readonly email: string; readonly role: Role; readonly expires_at: string }[];
}

interface Invited {
  readonly email: string;
  readonly emailed: boolean;
  readonly link: string | null;
}

export function MembersPage() {
  const { t, language } = useI18n();
  const { session } = useSession();
  const owner = isOwner(session);
  const members = useLoad(() => api<MemberList>('/cabinet/api/members'), []);
  const roleName = (role: Role) => t(role === 'owner' ? 'members.roleOwner' : 'members.roleMember');
  return (
    <>
      <PageHeading title={t('members.title')} />
      <p>{t(owner ? 'members.introOwner' : 'members.introMember')}</p>
      {owner && <InviteForm onInvited={members.reload} />}
      <section aria-labelledby="members-heading">
        <h2 id="members-heading">{t('members.list')}</h2>
        <LoadedView loaded={members}>
          {(list) => (
            <>
              <div class="table-scroll" role="region" tabIndex={0} aria-labelledby="members-heading">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('members.email')}</th>
                      <th scope="col">{t('members.name')}</th>
                      <th scope="col">{t('members.role')}</th>
                      <th scope="col">{t('members.joined')}</th>
                      {owner && <th scope="col">{t('common.actions')}</th>}
                    </tr>
                  </thead>
                  <tbody>
                    {list.data.map((member) => (
                      <tr key={member.user_id} data-member={member.email ?? member.user_id}>
                        <td>
                          {member.email ?? '—'} {member.you && <span class="badge">{t('members.you')}</span>} {member.disabled && <span class="badge">{t('members.disabled')}</span>}
                        </td>
                        <td>{member.name ?? '—'}</td>
                        <td>{roleName(member.role)}</td>
                        <td>{formatDateTime(member.joined_at, language)}</td>
                        {owner && (
                          <td>
                            <MemberActions member={member} onChanged={members.reload} />
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {list.invitations.length > 0 && (
                <>
                  <h3>{t('members.pending')}</h3>
                  <ul>
                    {list.invitations.map((invitation) => (
                      <li key={invitation.id}>{t('members.pendingItem', { email: invitation.email, role: roleName(invitation.role), until: formatDateTime(invitation.expires_at, language) })}</li>
                    ))}
                  </ul>
                </>
              )}
            </>
          )}
        </LoadedView>
      </section>
      <YourAccounts />
    </>
  );
}

function InviteForm(props: { onInvited: () => void }) {
  const { t, language } = useI18n();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [invited, setInvited] = useState<Invited | undefined>(undefined);
  const { busy, error, run } = useAction();
  return (
    <section aria-labelledby="invite-heading">
      <h2 id="invite-heading">{t('members.invite')}</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            setInvited(await api<Invited>('/cabinet/api/members/invite', { method: 'POST', body: { email, role, locale: language } }));
            setEmail('');
            props.onInvited();
          });
        }}
      >
        <label>
          {t('members.email')}
          <input type="email" name="email" autoComplete="off" required maxLength={320} value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </label>
        <label>
          {t('members.role')}
          <select name="role" value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
            <option value="member">{t('members.roleMember')}</option>
            <option value="owner">{t('members.roleOwner')}</option>
          </select>
        </label>
        <p class="muted small">{t('members.roleHelp')}</p>
        <ErrorMessage error={error} fields={{ email: t('members.email'), role: t('members.role') }} />
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {t('members.inviteButton')}
          </button>
        </div>
      </form>
      {invited && (
        <div aria-live="polite">
          {invited.link === null ? (
            <p>{t('members.invitationSent', { email: invited.email })}</p>
          ) : (
            <>
              <p>{t('members.invitationLink', { email: invited.email })}</p>
              <p class="secret-value">
                <code data-testid="invitation-link">{invited.link}</code> <CopyButton text={invited.link} label={t('keys.copy')} />
              </p>
            </>
          )}
        </div>
      )}
    </section>
  );
}

function MemberActions(props: { member: Member; onChanged: () => void }) {
  const { t } = useI18n();
  const { member } = props;
  const { busy, error, run } = useAction();
  const other: Role = member.role === 'owner' ? 'member' : 'owner';
  const who = member.email ?? member.user_id;
  return (
    <div class="actions">
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          void run(async () => {
            await api(`/cabinet/api/members/${encodeURIComponent(member.user_id)}/role`, { method: 'POST', body: { role: other } });
            props.onChanged();
          })
        }
      >
        {t(other === 'owner' ? 'members.makeOwner' : 'members.makeMember')}
        <span class="visually-hidden"> {who}</span>
      </button>
      <ConfirmButton
        question={t('members.removeConfirm', { who })}
        onConfirmed={() =>
          run(async () => {
            await api(`/cabinet/api/members/${encodeURIComponent(member.user_id)}`, { method: 'DELETE' });
            props.onChanged();
          })
        }
      >
        {t('members.remove')}
        <span class="visually-hidden"> {who}</span>
      </ConfirmButton>
      <ErrorMessage error={error} />
    </div>
  );
}

/** The user's other accounts, each opened with a button (a new session on it). */
function YourAccounts() {
  const { t } = useI18n();
  const { session, replace } = useSession();
  const { busy, error, run } = useAction();
  const others = (session?.accounts ?? []).filter((account) => account.id !== session?.account?.id);
  if (others.length === 0) return null;
  return (
    <section aria-labelledby="accounts-heading">
      <h2 id="accounts-heading">{t('members.yourAccounts')}</h2>
      <ErrorMessage error={error} />
      <ul>
        {others.map((account) => (
          <li key={account.id}>
            {account.name} ({t(account.role === 'owner' ? 'members.roleOwner' : 'members.roleMember')}){' '}
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void run(async () => {
                  replace(await switchAccount(account.id));
                  navigate('/', { replace: true });
                })
              }
            >
              {t('members.openAccount', { account: account.name })}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
