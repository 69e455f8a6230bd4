// API keys as both the account cabinet (its own keys, /cabinet/api/keys) and the operator
// console (any account's keys, /admin/v1/accounts/:id/keys) show them: the form that creates
// one (name, scopes, rate limits: requests and tokens per minute, requests at once), the panel that shows its secret once with a copy button, and
// the table with prefix, last four, last use and state, each active key with a revoke button.
// The pages pass in how to create and revoke, so the same pieces serve both APIs.
import { useState } from 'preact/hooks';
import { useAction } from '../data.js';
import { formatDateTime } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { CopyButton, ErrorMessage } from './common.js';
import { ConfirmButton } from './confirm-button.js';

export const scopes = ['chat', 'search', 'images', 'video', 'music', 'audio', 'embeddings'] as const;

export interface ApiKeyRow {
  id: string;
  name: string | null;
  prefix: string;
  last4: string;
  scopes: string[];
  rpm: number | null;
  tpm?: number | null;
  max_in_flight?: number | null;
  created_at: number | string;
  last_used_at: number | string | null;
  revoked_at: number | string | null;
  purpose?: string;
  expires_at?: number | string | null;
  /** The admin API's own verdict (`active`, `revoked`, `expired`); the cabinet's list has none. */
  status?: string;
}

export interface NewKey {
  name: string;
  scopes: string[];
  rpm?: number;
  tpm?: number;
  max_in_flight?: number;
}

export interface CreatedKey {
  /** The secret, shown this once. */
  key: string;
  name: string | null;
}

export function CreateKeyForm(props: { create: (body: NewKey) => Promise<CreatedKey>; onCreated: (created: CreatedKey) => void }) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string[]>(['chat']);
  const [rpm, setRpm] = useState('');
  const [tpm, setTpm] = useState('');
  const [inFlight, setInFlight] = useState('');
  const { busy, error, run } = useAction();
  return (
    <section aria-labelledby="create-key-heading">
      <h2 id="create-key-heading">{t('keys.create')}</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            const body: NewKey = { name, scopes: chosen };
            if (rpm.trim() !== '') body.rpm = Number(rpm);
            if (tpm.trim() !== '') body.tpm = Number(tpm);
            if (inFlight.trim() !== '') body.max_in_flight = Number(inFlight);
            const created = await props.create(body);
            props.onCreated({ key: created.key, name: created.name ?? name });
            setName('');
          });
        }}
      >
        <label>
          {t('keys.name')}
          <input type="text" name="name" value={name} required maxLength={200} onInput={(event) => setName(event.currentTarget.value)} />
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
        <label>
          {t('keys.tpm')}
          <input type="number" name="tpm" min={1} step={1} value={tpm} inputMode="numeric" onInput={(event) => setTpm(event.currentTarget.value)} aria-describedby="tpm-help" />
        </label>
        <p id="tpm-help" class="muted small">
          {t('keys.tpmHelp')}
        </p>
        <label>
          {t('keys.maxInFlight')}
          <input type="number" name="max_in_flight" min={1} step={1} value={inFlight} inputMode="numeric" onInput={(event) => setInFlight(event.currentTarget.value)} aria-describedby="in-flight-help" />
        </label>
        <p id="in-flight-help" class="muted small">
          {t('keys.maxInFlightHelp')}
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

export function KeyTable(props: { keys: ApiKeyRow[]; revoke: (id: string) => Promise<unknown>; onChanged: () => void }) {
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
                  <td class="number">{key.tpm ?? '—'}</td>
                  <td class="number">{key.max_in_flight ?? '—'}</td>
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
