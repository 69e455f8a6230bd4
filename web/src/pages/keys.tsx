// API keys: create one with scopes and a rate limit (its secret shown once, with a copy
// button), list them with prefix, last four and last use, revoke; and the account's webhook
// signing secret, shown on request and rotated.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { CopyButton, ErrorMessage, Loading, PageHeading } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { useLoad } from '../data.js';
import { formatDateTime } from '../format.js';
import { useI18n } from '../i18n/index.js';

export const scopes = ['chat', 'search', 'images', 'video', 'music', 'audio', 'embeddings'] as const;

export interface ApiKeyRow {
  id: string;
  name: string | null;
  prefix: string;
  last4: string;
  scopes: string[];
  rpm: number | null;
  created_at: number | string;
  last_used_at: number | string | null;
  revoked_at: number | string | null;
  purpose?: string;
  expires_at?: number | string | null;
}

export function KeysPage() {
  const { t } = useI18n();
  const keys = useLoad(() => api<{ data: ApiKeyRow[] }>('/cabinet/api/keys'), []);
  const [created, setCreated] = useState<{ key: string; name: string | null } | undefined>(undefined);
  return (
    <>
      <PageHeading title={t('keys.title')} />
      <CreateKey
        onCreated={(secret) => {
          setCreated(secret);
          keys.reload();
        }}
      />
      {created && (
        <section class="secret" aria-labelledby="secret-heading" aria-live="polite">
          <h2 id="secret-heading">{t('keys.secretTitle')}</h2>
          <p>{t('keys.secretOnce')}</p>
          <p class="secret-value">
            <code data-testid="new-key-secret">{created.key}</code> <CopyButton text={created.key} label={t('keys.copy')} />
          </p>
          <button type="button" onClick={() => setCreated(undefined)}>
            {t('keys.secretDone')}
          </button>
        </section>
      )}
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">{t('keys.list')}</h2>
        <ErrorMessage error={keys.error} />
        {keys.loading && !keys.data && <Loading />}
        {keys.data && <KeyTable keys={keys.data.data} onChanged={keys.reload} />}
      </section>
      <WebhookSecret />
    </>
  );
}

function CreateKey(props: { onCreated: (secret: { key: string; name: string | null }) => void }) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string[]>(['chat']);
  const [rpm, setRpm] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  return (
    <section aria-labelledby="create-heading">
      <h2 id="create-heading">{t('keys.create')}</h2>
      <form
        class="stacked"
        onSubmit={async (event) => {
          event.preventDefault();
          setError(undefined);
          setBusy(true);
          try {
            const body: { name: string; scopes: string[]; rpm?: number } = { name, scopes: chosen };
            if (rpm.trim() !== '') body.rpm = Number(rpm);
            const answer = await api<{ key: string; name?: string | null }>('/cabinet/api/keys', { method: 'POST', body });
            props.onCreated({ key: answer.key, name: answer.name ?? name });
            setName('');
          } catch (reason) {
            setError(reason);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label>
          {t('keys.name')}
          <input type="text" name="name" value={name} required maxLength={100} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <fieldset>
          <legend>{t('keys.scopes')}</legend>
          {scopes.map((scope) => (
            <label key={scope} class="inline">
              <input
                type="checkbox"
                name="scopes"
                value={scope}
                checked={chosen.includes(scope)}
                onChange={(event) => setChosen(event.currentTarget.checked ? scopes.filter((s) => s === scope || chosen.includes(s)) : chosen.filter((s) => s !== scope))}
              />
              {scope}
            </label>
          ))}
        </fieldset>
        <label>
          {t('keys.rpm')}
          <input type="number" name="rpm" min={1} step={1} value={rpm} inputMode="numeric" onInput={(event) => setRpm(event.currentTarget.value)} aria-describedby="rpm-help" />
        </label>
        <p id="rpm-help" class="muted small">
          {t('keys.rpmHelp')}
        </p>
        <ErrorMessage error={error} />
        <div>
          <button type="submit" class="primary" disabled={busy || chosen.length === 0}>
            {t('keys.createButton')}
          </button>
        </div>
      </form>
    </section>
  );
}

function KeyTable(props: { keys: ApiKeyRow[]; onChanged: () => void }) {
  const { t, language } = useI18n();
  const [error, setError] = useState<unknown>(undefined);
  if (props.keys.length === 0) return <p>{t('keys.empty')}</p>;
  return (
    <>
      <ErrorMessage error={error} />
      <div class="table-scroll">
        <table class="keys">
          <thead>
            <tr>
              <th scope="col">{t('keys.name')}</th>
              <th scope="col">{t('keys.key')}</th>
              <th scope="col">{t('keys.scopes')}</th>
              <th scope="col" class="number">
                {t('keys.rpmShort')}
              </th>
              <th scope="col">{t('keys.created')}</th>
              <th scope="col">{t('keys.lastUsed')}</th>
              <th scope="col">{t('keys.state')}</th>
            </tr>
          </thead>
          <tbody>
            {props.keys.map((key) => {
              const label = key.name ?? `${key.prefix}…${key.last4}`;
              return (
                <tr key={key.id} data-key-id={key.id}>
                  <td>
                    {key.name ?? '—'}
                    {key.purpose === 'cabinet' && <span class="badge">{t('keys.cabinetKey')}</span>}
                  </td>
                  <td>
                    <code>
                      {key.prefix}…{key.last4}
                    </code>
                  </td>
                  <td>{key.scopes.join(', ')}</td>
                  <td class="number">{key.rpm ?? '—'}</td>
                  <td>{formatDateTime(key.created_at, language)}</td>
                  <td>{key.last_used_at ? formatDateTime(key.last_used_at, language) : t('keys.never')}</td>
                  <td>
                    {key.revoked_at ? (
                      t('keys.revokedAt', { date: formatDateTime(key.revoked_at, language) })
                    ) : (
                      <button
                        type="button"
                        class="danger"
                        onClick={async () => {
                          if (!confirm(t('keys.revokeConfirm', { name: label }))) return;
                          setError(undefined);
                          try {
                            await api(`/cabinet/api/keys/${encodeURIComponent(key.id)}/revoke`, { method: 'POST' });
                          } catch (reason) {
                            setError(reason);
                          }
                          props.onChanged();
                        }}
                      >
                        {t('keys.revoke')}
                        <span class="visually-hidden"> {label}</span>
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

function WebhookSecret() {
  const { t } = useI18n();
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const run = async (request: () => Promise<{ webhook_secret: string }>) => {
    setError(undefined);
    try {
      setSecret((await request()).webhook_secret);
    } catch (reason) {
      setError(reason);
    }
  };
  return (
    <section aria-labelledby="webhook-heading">
      <h2 id="webhook-heading">{t('keys.webhookTitle')}</h2>
      <p>{t('keys.webhookHelp')}</p>
      {secret && (
        <p class="secret-value">
          <code data-testid="webhook-secret">{secret}</code> <CopyButton text={secret} label={t('keys.copy')} />
        </p>
      )}
      <ErrorMessage error={error} />
      <div class="actions">
        {!secret && (
          <button type="button" onClick={() => run(() => api('/cabinet/api/webhook-secret'))}>
            {t('keys.webhookShow')}
          </button>
        )}
        <ConfirmButton plain question={t('keys.webhookRotateConfirm')} onConfirmed={() => run(() => api('/cabinet/api/webhook-secret/rotate', { method: 'POST' }))}>
          {t('keys.webhookRotate')}
        </ConfirmButton>
      </div>
    </section>
  );
}
