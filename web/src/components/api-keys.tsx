// API keys as both the account cabinet (its own keys, /cabinet/api/keys) and the operator
// console (any account's keys, /admin/v1/accounts/:id/keys) show them: the form that creates
// one with every control (components/key-controls.tsx), the panel that shows its secret once
// with a copy button, and the table with prefix, last four, controls, last use and state, each
// active key with a change dialog (components/key-change-dialog.tsx) and a revoke button.
// The pages pass in how to create, change and revoke, so the same pieces serve both APIs.
import { useState } from 'preact/hooks';
import { useAction } from '../data.js';
import { formatDateTime, formatRub } from '../format.js';
import { useI18n } from '../i18n/index.js';
import type { CatalogModel } from '../models.js';
import { CopyButton, ErrorMessage } from './common.js';
import { ConfirmButton } from './confirm-button.js';
import { KeyChangeButton } from './key-change-dialog.js';
import { createBody, fieldLabels, KeyControlsFields, newKeyState, type KeyControlsRow } from './key-controls.js';

export { scopes } from './key-controls.js';

export interface ApiKeyRow extends KeyControlsRow {
  id: string;
  prefix: string;
  last4: string;
  created_at: number | string;
  last_used_at: number | string | null;
  revoked_at: number | string | null;
  purpose?: string;
  /** The admin API's own verdict (`active`, `revoked`, `expired`); the cabinet's list has none. */
  status?: string;
}

export interface CreatedKey {
  /** The secret, shown this once. */
  key: string;
  name: string | null;
}

export function CreateKeyForm(props: { create: (body: Record<string, unknown>) => Promise<CreatedKey>; onCreated: (created: CreatedKey) => void; models: CatalogModel[] | undefined }) {
  const { t } = useI18n();
  const [state, setState] = useState(newKeyState);
  const { busy, error, run } = useAction();
  return (
    <section aria-labelledby="create-key-heading">
      <h2 id="create-key-heading">{t('keys.create')}</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            const created = await props.create(createBody(state));
            props.onCreated({ key: created.key, name: created.name ?? state.name });
            setState(newKeyState());
          });
        }}
      >
        <KeyControlsFields state={state} onChange={setState} models={props.models} idPrefix="new-key" />
        <ErrorMessage error={error} fields={fieldLabels(t)} />
        <div>
          <button type="submit" class="primary" disabled={busy || state.scopes.length === 0}>
            {t('keys.createButton')}
          </button>
        </div>
      </form>
    </section>
  );
}

/** The new key's secret, until the user says it is saved: nothing can show it again. */
export function NewKeySecret(props: { created: CreatedKey; onDone: () => void }) {
  const { t } = useI18n();
  return (
    <section class="secret" aria-labelledby="secret-heading" aria-live="polite">
      <h2 id="secret-heading">{t('keys.secretTitle')}</h2>
      <p>{t('keys.secretOnce')}</p>
      <p class="secret-value">
        <code data-testid="new-key-secret">{props.created.key}</code> <CopyButton text={props.created.key} label={t('keys.copy')} />
      </p>
      <button type="button" onClick={props.onDone}>
        {t('keys.secretDone')}
      </button>
    </section>
  );
}

/** A key's controls in a few words: budget, models, addresses, expiry (— when it has none). */
function ControlsSummary(props: { apiKey: ApiKeyRow }) {
  const { t, language } = useI18n();
  const key = props.apiKey;
  const lines: string[] = [];
  if (key.budget_rub) lines.push(t('keyControls.budgetShown', { amount: formatRub(key.budget_rub, language), period: t(`keyControls.per.${(key.budget_period ?? 'month') as 'day' | 'week' | 'month' | 'total'}`) }));
  if (key.models) lines.push(t('keyControls.modelsShown', { models: key.models.join(', ') }));
  if (key.allowed_ips) lines.push(t('keyControls.allowedIpsShown', { addresses: key.allowed_ips.join(', ') }));
  if (key.expires_at !== null && key.expires_at !== undefined && !key.revoked_at && key.status !== 'expired') lines.push(t('keyControls.expiresShown', { date: formatDateTime(key.expires_at, language) }));
  if (lines.length === 0) return <>—</>;
  return (
    <ul class="plain">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}

export function KeyTable(props: {
  keys: ApiKeyRow[];
  revoke: (id: string) => Promise<unknown>;
  /** Sends a change of the key's controls (PATCH); absent: the table offers none. */
  change?: (id: string, body: Record<string, unknown>) => Promise<unknown>;
  /** Whether this key's controls may be changed here (the cabinet's own key may not). */
  changeable?: (key: ApiKeyRow) => boolean;
  models?: CatalogModel[] | undefined;
  onChanged: () => void;
}) {
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
              <th scope="col" class="number">
                {t('keys.tpmShort')}
              </th>
              <th scope="col" class="number">
                {t('keys.maxInFlightShort')}
              </th>
              <th scope="col">{t('keyControls.controls')}</th>
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
                    {key.purpose === 'bot' && <span class="badge">{t('keys.botKey')}</span>}
                  </td>
                  <td>
                    <code>
                      {key.prefix}…{key.last4}
                    </code>
                  </td>
                  <td>{key.scopes.join(', ')}</td>
                  <td class="number">{key.rpm ?? '—'}</td>
                  <td class="number">{key.tpm ?? '—'}</td>
                  <td class="number">{key.max_in_flight ?? '—'}</td>
                  <td>
                    <ControlsSummary apiKey={key} />
                  </td>
                  <td>{formatDateTime(key.created_at, language)}</td>
                  <td>{key.last_used_at ? formatDateTime(key.last_used_at, language) : t('keys.never')}</td>
                  <td>
                    {key.revoked_at ? (
                      t('keys.revokedAt', { date: formatDateTime(key.revoked_at, language) })
                    ) : key.status === 'expired' ? (
                      t('keys.expiredAt', { date: formatDateTime(key.expires_at, language) })
                    ) : (
                      <>
                        {t('keys.active')}{' '}
                        {props.change && (props.changeable?.(key) ?? true) && <KeyChangeButton apiKey={key} label={label} models={props.models} change={props.change} onChanged={props.onChanged} />}{' '}
                        <ConfirmButton
                          question={t('keys.revokeConfirm', { name: label })}
                          onConfirmed={async () => {
                            setError(undefined);
                            try {
                              await props.revoke(key.id);
                            } catch (reason) {
                              setError(reason);
                            }
                            props.onChanged();
                          }}
                        >
                          {t('keys.revoke')}
                          <span class="visually-hidden"> {label}</span>
                        </ConfirmButton>
                      </>
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
