// One batch of redemption codes (GET /admin/v1/codes/:id, reached from the codes list): its
// terms and state, disabled with a confirmed button, and its codes — never the codes
// themselves (the gateway keeps only their hashes), each named by its hint — with the uses
// left, the redemptions, the state, and a confirmed Disable per code (POST
// /admin/v1/codes/:id/disable with the code's id).
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ConsoleTable } from '../components/console-table.js';
import { ErrorMessage, Link, Loading, PageHeading } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { useLoad } from '../data.js';
import { formatNumber, formatRub } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { batchState, type CodeBatch } from './codes.js';
import { formatMoment } from './console-format.js';
import { notOffered } from './payments.js';

interface BatchCode {
  readonly id: string;
  /** A few characters of the code, enough to recognise it. */
  readonly hint: string;
  readonly uses_left: number;
  readonly disabled_at: string | number | null;
  readonly redemptions: number;
}

interface BatchWithCodes extends CodeBatch {
  readonly codes: readonly BatchCode[];
}

/** A code's state: its own disabling or last use first, then its batch's. */
function codeState(code: BatchCode, batch: CodeBatch): 'active' | 'disabled' | 'expired' | 'usedUp' {
  if (code.disabled_at !== null) return 'disabled';
  if (code.uses_left <= 0) return 'usedUp';
  return batchState(batch);
}

export function CodeBatchPage(props: { params: Record<string, string> }) {
  const { t, language } = useI18n();
  const id = props.params.id!;
  const batch = useLoad(() => api<BatchWithCodes>(`/admin/v1/codes/${encodeURIComponent(id)}`), [id]);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const disable = async (target: string) => {
    setActionError(undefined);
    try {
      await api(`/admin/v1/codes/${encodeURIComponent(target)}/disable`, { method: 'POST' });
    } catch (reason) {
      setActionError(reason);
    }
    batch.reload();
  };
  const data = batch.data;
  return (
    <>
      <p class="small">
        <Link to="/console/codes">{t('console.codes.back')}</Link>
      </p>
      <PageHeading title={t('console.codes.batchTitle', { id })} />
      {notOffered(batch.error) ? <p>{t('console.codes.batchMissing')}</p> : <ErrorMessage error={batch.error} />}
      <ErrorMessage error={actionError} />
      {batch.loading && !data && <Loading />}
      {data && (
        <>
          <dl class="facts">
            <dt>{t('common.amount')}</dt>
            <dd>{formatRub(data.amount_rub, language)}</dd>
            <dt>{t('console.codes.count')}</dt>
            <dd>{formatNumber(data.count, language)}</dd>
            <dt>{t('console.codes.uses')}</dt>
            <dd>{formatNumber(data.uses_per_code, language)}</dd>
            <dt>{t('console.codes.redeemed')}</dt>
            <dd>{formatNumber(data.redeemed, language)}</dd>
            <dt>{t('console.codes.expires')}</dt>
            <dd>{data.expires_at === null ? t('console.codes.never') : formatMoment(data.expires_at, language)}</dd>
            <dt>{t('console.codes.state')}</dt>
            <dd>{t(`console.codes.state.${batchState(data)}`)}</dd>
            <dt>{t('console.codes.note')}</dt>
            <dd>{data.note ?? '—'}</dd>
            <dt>{t('console.codes.createdBy')}</dt>
            <dd>{data.created_by ?? '—'}</dd>
            <dt>{t('console.jobs.created')}</dt>
            <dd>{formatMoment(data.created_at, language)}</dd>
          </dl>
          {data.disabled_at === null && (
            <p>
              <ConfirmButton question={t('console.codes.disableBatchConfirm', { id: data.id, count: data.count })} onConfirmed={() => disable(data.id)}>
                {t('console.codes.disableBatch')}
              </ConfirmButton>
            </p>
          )}
          <section aria-labelledby="batch-codes-heading">
            <h2 id="batch-codes-heading">{t('console.codes.codes')}</h2>
            <ConsoleTable
              class="batch-codes"
              caption={t('console.codes.codes')}
              empty={t('console.codes.noCodes')}
              columns={[
                { label: t('console.codes.code') },
                { label: t('console.codes.usesLeft'), number: true },
                { label: t('console.codes.redemptions'), number: true },
                { label: t('console.codes.state') },
                { label: t('common.actions') },
              ]}
              rowCount={data.codes.length}
            >
              {data.codes.map((code) => (
                <tr key={code.id} data-code={code.id}>
                  <td>
                    <code>{code.hint}</code>
                  </td>
                  <td class="number">{formatNumber(code.uses_left, language)}</td>
                  <td class="number">{formatNumber(code.redemptions, language)}</td>
                  <td>{t(`console.codes.codeState.${codeState(code, data)}`)}</td>
                  <td>
                    {code.disabled_at === null && data.disabled_at === null && code.uses_left > 0 && (
                      <ConfirmButton question={t('console.codes.disableCodeConfirm', { hint: code.hint })} onConfirmed={() => disable(code.id)}>
                        {t('console.codes.disable')}
                        <span class="visually-hidden"> {code.hint}</span>
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              ))}
            </ConsoleTable>
          </section>
        </>
      )}
    </>
  );
}
