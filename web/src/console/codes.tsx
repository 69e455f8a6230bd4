// Redemption codes (GET /admin/v1/codes): the batches, newest first — amount, how many codes
// and uses each, how many were redeemed, expiry, state and note — each opening its codes
// (code-batch.tsx) and disabled with a confirmed button (POST /admin/v1/codes/:id/disable: no
// code of it redeems any more). A form creates a batch (POST /admin/v1/codes {amount_rub, count,
// expires?, uses?, note?}); its codes are shown once, since the gateway keeps only their hashes,
// with a CSV download made in the browser and a copy button.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ConsoleTable } from '../components/console-table.js';
import { CopyButton, ErrorMessage, fieldOf, Link, Loading, PageHeading, RefreshButton } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { codesCsv } from '../codes-csv.js';
import { useAction, useLoad } from '../data.js';
import { dateOf, formatNumber, formatRub, typedAmount } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { formatMoment } from './console-format.js';
import { notOffered } from './payments.js';

export interface CodeBatch {
  readonly id: string;
  readonly amount_rub: string;
  readonly uses_per_code: number;
  readonly count: number;
  readonly redeemed: number;
  readonly expires_at: string | number | null;
  readonly disabled_at: string | number | null;
  readonly note: string | null;
  readonly created_by: string | null;
  readonly created_at: string | number;
}

interface CreatedCodes {
  readonly batch: CodeBatch;
  readonly codes: readonly string[];
}

/** Active, disabled, or expired (by the browser's clock: the server decides at redemption). */
export function batchState(batch: { disabled_at: string | number | null; expires_at: string | number | null }): 'active' | 'disabled' | 'expired' {
  if (batch.disabled_at !== null) return 'disabled';
  const expires = dateOf(batch.expires_at);
  if (expires !== undefined && expires.getTime() <= Date.now()) return 'expired';
  return 'active';
}

export function CodesPage() {
  const { t, language } = useI18n();
  const batches = useLoad(() => api<{ data: readonly CodeBatch[] }>('/admin/v1/codes'), []);
  const [created, setCreated] = useState<CreatedCodes | undefined>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const missing = notOffered(batches.error);
  const disable = async (batch: CodeBatch) => {
    setActionError(undefined);
    try {
      await api(`/admin/v1/codes/${encodeURIComponent(batch.id)}/disable`, { method: 'POST' });
    } catch (reason) {
      setActionError(reason);
    }
    batches.reload();
  };
  return (
    <>
      <PageHeading title={t('console.codes.title')}>
        <RefreshButton loaded={batches} />
      </PageHeading>
      <p>{t('console.codes.intro')}</p>
      {missing ? (
        <p data-testid="codes-not-offered">{t('console.codes.notOffered')}</p>
      ) : (
        <>
          <CreateBatchForm
            onCreated={(next) => {
              setCreated(next);
              batches.reload();
            }}
          />
          {created && <NewCodes created={created} onDone={() => setCreated(undefined)} />}
        </>
      )}
      <section aria-labelledby="batches-heading">
        <h2 id="batches-heading">{t('console.codes.batches')}</h2>
        {!missing && <ErrorMessage error={batches.error} />}
        <ErrorMessage error={actionError} />
        {batches.loading && !batches.data && <Loading />}
        {batches.data && (
          <ConsoleTable
            class="codes"
            caption={t('console.codes.batches')}
            empty={t('console.codes.empty')}
            columns={[
              { label: t('console.jobs.created') },
              { label: t('console.codes.batch') },
              { label: t('common.amount'), number: true },
              { label: t('console.codes.count'), number: true },
              { label: t('console.codes.uses'), number: true },
              { label: t('console.codes.redeemed'), number: true },
              { label: t('console.codes.expires') },
              { label: t('console.codes.state') },
              { label: t('console.codes.note') },
              { label: t('common.actions') },
            ]}
            rowCount={batches.data.data.length}
          >
            {batches.data.data.map((batch) => (
              <tr key={batch.id} data-batch={batch.id}>
                <td class="nowrap">{formatMoment(batch.created_at, language)}</td>
                <td>
                  <Link to={`/console/codes/${encodeURIComponent(batch.id)}`}>
                    <code>{batch.id}</code>
                  </Link>
                </td>
                <td class="number">{formatRub(batch.amount_rub, language)}</td>
                <td class="number">{formatNumber(batch.count, language)}</td>
                <td class="number">{formatNumber(batch.uses_per_code, language)}</td>
                <td class="number">{formatNumber(batch.redeemed, language)}</td>
                <td class="nowrap">{batch.expires_at === null ? t('console.codes.never') : formatMoment(batch.expires_at, language)}</td>
                <td>{t(`console.codes.state.${batchState(batch)}`)}</td>
                <td>{batch.note ?? '—'}</td>
                <td>
                  {batch.disabled_at === null && (
                    <ConfirmButton question={t('console.codes.disableBatchConfirm', { id: batch.id, count: batch.count })} onConfirmed={() => disable(batch)}>
                      {t('console.codes.disable')}
                      <span class="visually-hidden"> {batch.id}</span>
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </ConsoleTable>
        )}
      </section>
    </>
  );
}

function CreateBatchForm(props: { onCreated: (created: CreatedCodes) => void }) {
  const { t } = useI18n();
  const [amount, setAmount] = useState('');
  const [count, setCount] = useState('1');
  const [expires, setExpires] = useState('');
  const [uses, setUses] = useState('');
  const [note, setNote] = useState('');
  const { busy, error, run } = useAction();
  const fields = { amount_rub: t('console.accounts.amount'), count: t('console.codes.count'), expires: t('console.codes.expiresIn'), uses: t('console.codes.uses'), note: t('console.codes.note') };
  const invalid = fieldOf(error, fields);
  const describedBy = (field: string, help?: string) => [help, invalid === field ? 'create-codes-error' : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <section aria-labelledby="create-codes-heading">
      <h2 id="create-codes-heading">{t('console.codes.create')}</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            const body: Record<string, unknown> = { amount_rub: typedAmount(amount), count: Number(count) };
            if (expires.trim() !== '') body.expires = expires.trim();
            if (uses.trim() !== '') body.uses = Number(uses);
            if (note.trim() !== '') body.note = note.trim();
            props.onCreated(await api<CreatedCodes>('/admin/v1/codes', { method: 'POST', body }));
            setAmount('');
            setNote('');
          });
        }}
      >
        <div class="row">
          <label>
            {t('console.accounts.amount')}
            <input type="text" name="amount_rub" inputMode="decimal" autocomplete="off" required value={amount} aria-invalid={invalid === 'amount_rub' ? true : undefined} aria-describedby={describedBy('amount_rub')} onInput={(event) => setAmount(event.currentTarget.value)} />
          </label>
          <label>
            {t('console.codes.count')}
            <input type="number" name="count" min={1} step={1} required value={count} aria-invalid={invalid === 'count' ? true : undefined} aria-describedby={describedBy('count')} onInput={(event) => setCount(event.currentTarget.value)} />
          </label>
          <label>
            {t('console.codes.uses')}
            <input type="number" name="uses" min={1} step={1} placeholder="1" value={uses} aria-invalid={invalid === 'uses' ? true : undefined} aria-describedby={describedBy('uses', 'create-codes-uses-help')} onInput={(event) => setUses(event.currentTarget.value)} />
          </label>
          <label>
            {t('console.codes.expiresIn')}
            <input type="text" name="expires" autocomplete="off" placeholder="30d" value={expires} aria-invalid={invalid === 'expires' ? true : undefined} aria-describedby={describedBy('expires', 'create-codes-expires-help')} onInput={(event) => setExpires(event.currentTarget.value)} />
          </label>
        </div>
        <p id="create-codes-uses-help" class="muted small">
          {t('console.codes.usesHelp')}
        </p>
        <p id="create-codes-expires-help" class="muted small">
          {t('console.codes.expiresHelp')}
        </p>
        <label>
          {t('console.codes.note')}
          <input type="text" name="note" maxLength={500} autocomplete="off" value={note} aria-invalid={invalid === 'note' ? true : undefined} aria-describedby={describedBy('note')} onInput={(event) => setNote(event.currentTarget.value)} />
        </label>
        <ErrorMessage error={error} fields={fields} id="create-codes-error" />
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {t('console.codes.createButton')}
          </button>
        </div>
      </form>
    </section>
  );
}

/** The codes of the batch just made, this once: a CSV file built in the browser, and a copy of them all. */
function NewCodes(props: { created: CreatedCodes; onDone: () => void }) {
  const { t, language } = useI18n();
  const { batch, codes } = props.created;
  const csvUrl = useMemo(() => URL.createObjectURL(new Blob([codesCsv(batch, codes)], { type: 'text/csv;charset=utf-8' })), [batch, codes]);
  useEffect(() => () => URL.revokeObjectURL(csvUrl), [csvUrl]);
  return (
    <section class="secret" aria-labelledby="new-codes-heading">
      <h2 id="new-codes-heading">{t('console.codes.newTitle', { count: codes.length, amount: formatRub(batch.amount_rub, language) })}</h2>
      <p>{t('console.codes.newOnce')}</p>
      <div class="actions">
        <a class="button" href={csvUrl} download={`codes-${batch.id}.csv`}>
          {t('history.csv')}
        </a>
        <CopyButton text={codes.join('\n')} label={t('console.codes.copyAll')} />
        <button type="button" onClick={props.onDone}>
          {t('console.codes.done')}
        </button>
      </div>
      <pre class="json" tabIndex={0} aria-label={t('console.codes.newList')} data-testid="new-codes">
        {codes.join('\n')}
      </pre>
    </section>
  );
}
