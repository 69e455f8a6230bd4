// An account's API keys in the console: the cabinet's own key pieces (components/api-keys.tsx)
// over the admin API — GET and POST /admin/v1/accounts/:id/keys, PATCH /admin/v1/keys/:id (every
// control, shown in the table and changed in its dialog), POST /admin/v1/keys/:id/revoke. The
// models to pick from are the public catalog's (GET /v1/models). The new key's secret is in the
// create answer only, and shown once.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { CreateKeyForm, KeyTable, NewKeySecret, type ApiKeyRow, type CreatedKey } from '../components/api-keys.js';
import { ErrorMessage, Loading } from '../components/common.js';
import { useLoad } from '../data.js';
import { useI18n } from '../i18n/index.js';
import type { CatalogModel } from '../models.js';

export function AccountKeys(props: { accountId: string }) {
  const { t } = useI18n();
  const keysPath = `/admin/v1/accounts/${encodeURIComponent(props.accountId)}/keys`;
  const keys = useLoad(() => api<{ data: ApiKeyRow[] }>(keysPath), [keysPath]);
  const models = useLoad(async () => (await api<{ data: CatalogModel[] }>('/v1/models')).data, []);
  const [created, setCreated] = useState<CreatedKey | undefined>(undefined);
  return (
    <>
      <CreateKeyForm
        create={(body) => api<CreatedKey>(keysPath, { method: 'POST', body })}
        models={models.data}
        onCreated={(secret) => {
          setCreated(secret);
          keys.reload();
        }}
      />
      {created && <NewKeySecret created={created} onDone={() => setCreated(undefined)} />}
      <section aria-labelledby="account-keys-heading">
        <h2 id="account-keys-heading">{t('keys.list')}</h2>
        <ErrorMessage error={keys.error} />
        {keys.loading && !keys.data && <Loading />}
        {keys.data && (
          <KeyTable
            keys={keys.data.data}
            revoke={(id) => api(`/admin/v1/keys/${encodeURIComponent(id)}/revoke`, { method: 'POST' })}
            change={(id, body) => api(`/admin/v1/keys/${encodeURIComponent(id)}`, { method: 'PATCH', body })}
            models={models.data}
            onChanged={keys.reload}
          />
        )}
      </section>
    </>
  );
}
