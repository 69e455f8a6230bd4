// API keys: create one with every control the operator's CLI offers (scopes, budget, models
// picked from the catalog, expiry, addresses, limits; its secret shown once, with a copy
// button), list them with prefix, last four, controls and last use, change a key's controls,
// revoke — the shared pieces of components/api-keys.tsx over /cabinet/api/keys; and the
// account's webhook signing secret, shown on request and rotated.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { CreateKeyForm, KeyTable, NewKeySecret, type ApiKeyRow, type CreatedKey } from '../components/api-keys.js';
import { CopyButton, ErrorMessage, Loading, PageHeading } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { useLoad } from '../data.js';
import { useI18n } from '../i18n/index.js';
import { loadModels } from '../models.js';
import { isOwner, useSession } from '../session-context.js';

export function KeysPage() {
  const { t } = useI18n();
  const keys = useLoad(() => api<{ data: ApiKeyRow[] }>('/cabinet/api/keys'), []);
  const models = useLoad(loadModels, []);
  const [created, setCreated] = useState<CreatedKey | undefined>(undefined);
  return (
    <>
      <PageHeading title={t('keys.title')} />
      <CreateKeyForm
        create={(body) => api<CreatedKey>('/cabinet/api/keys', { method: 'POST', body })}
        models={models.data}
        onCreated={(secret) => {
          setCreated(secret);
          keys.reload();
        }}
      />
      {created && <NewKeySecret created={created} onDone={() => setCreated(undefined)} />}
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">{t('keys.list')}</h2>
        <ErrorMessage error={keys.error} />
        {keys.loading && !keys.data && <Loading />}
        {keys.data && (
          <KeyTable
            keys={keys.data.data}
            revoke={(id) => api(`/cabinet/api/keys/${encodeURIComponent(id)}/revoke`, { method: 'POST' })}
            change={(id, body) => api(`/cabinet/api/keys/${encodeURIComponent(id)}`, { method: 'PATCH', body })}
            // The key the cabinet itself acts through is not the customer's to restrict.
            changeable={(key) => key.purpose !== 'cabinet'}
            models={models.data}
            onChanged={keys.reload}
          />
        )}
      </section>
      <WebhookSecret />
    </>
  );
}

function WebhookSecret() {
  const { t } = useI18n();
  // Rotating the secret changes the account's details: owners only (the server says 403 owner_required to a member).
  const owner = isOwner(useSession().session);
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
        {owner && (
          <ConfirmButton plain question={t('keys.webhookRotateConfirm')} onConfirmed={() => run(() => api('/cabinet/api/webhook-secret/rotate', { method: 'POST' }))}>
            {t('keys.webhookRotate')}
          </ConfirmButton>
        )}
      </div>
    </section>
  );
}
