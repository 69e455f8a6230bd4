// Async jobs of every account (GET /admin/v1/jobs), newest first, filtered by status, kind and
// account (kept in the address). A queued or running job can be cancelled after a confirmation
// (POST /admin/v1/jobs/{id}/cancel: its hold released, nothing charged); a job that ended in
// the meantime is refused by the API (job_already_ended) and its message is shown.
import { useState } from 'preact/hooks';
import { api, queryString } from '../api.js';
import { AccountFilter, ChoiceFilter, FilterForm } from '../components/filter-form.js';
import { ConsoleTable } from '../components/console-table.js';
import { ErrorMessage, LoadedView, PageHeading, RefreshButton } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { useLoad } from '../data.js';
import { useQueryFilters } from '../filters.js';
import { formatDateTime, formatRub } from '../format.js';
import { useI18n, type MessageKey } from '../i18n/index.js';
import { consoleJobStatusLabel, jobStatuses } from '../job-status.js';
import { useAccountNames } from './account-names.js';

interface JobSummary {
  id: string;
  object: 'video' | 'music';
  status: string;
  model: string;
  created_at: number;
  charged_rub: string;
  held_rub: string;
  kind: string;
  account_id: string;
  error?: { code: string; message: string } | null;
}

export const jobKinds = ['video', 'video_upscale', 'music'] as const;
const pageSize = 50;
const emptyFilters = { status: '', kind: '', account: '' };

/** A job kind in words; a kind this page does not know, as the API spells it. */
export function jobKindLabel(kind: string, t: (key: MessageKey) => string): string {
  return (jobKinds as readonly string[]).includes(kind) ? t(`console.jobs.kind.${kind}` as MessageKey) : kind;
}

export function JobsPage() {
  const { t, language } = useI18n();
  const filters = useQueryFilters(emptyFilters);
  const accountName = useAccountNames();
  const applied = filters.applied;
  const jobs = useLoad(() => api<{ data: JobSummary[]; has_more: boolean }>(`/admin/v1/jobs${queryString({ ...applied, limit: pageSize })}`), [applied]);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);

  const cancel = async (job: JobSummary) => {
    setActionError(undefined);
    setNotice(undefined);
    try {
      const cancelled = await api<{ hold_rub: string }>(`/admin/v1/jobs/${encodeURIComponent(job.id)}/cancel`, { method: 'POST' });
      setNotice(t('console.jobs.cancelled', { id: job.id, amount: formatRub(cancelled.hold_rub, language) }));
    } catch (reason) {
      setActionError(reason);
    }
    jobs.reload();
  };

  return (
    <>
      <PageHeading title={t('console.jobs.title')}>
        <RefreshButton loaded={jobs} />
      </PageHeading>
      <FilterForm filters={filters}>
        <ChoiceFilter
          label={t('console.jobs.status')}
          binding={filters.field('status')}
          choices={jobStatuses.map((status) => ({ value: status, label: consoleJobStatusLabel(status, t) }))}
        />
        <ChoiceFilter label={t('console.jobs.kind')} binding={filters.field('kind')} choices={jobKinds.map((kind) => ({ value: kind, label: jobKindLabel(kind, t) }))} />
        <AccountFilter binding={filters.field('account')} />
      </FilterForm>
      {notice && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
      <ErrorMessage error={actionError} />
      <LoadedView loaded={jobs}>
        {(data) => (
            <ConsoleTable
              class="jobs"
              caption={t('console.jobs.title')}
              empty={t('console.jobs.empty')}
              columns={[
                { label: t('console.jobs.created') },
                { label: t('console.jobs.id') },
                { label: t('console.jobs.kind') },
                { label: t('console.requests.account') },
                { label: t('common.model') },
                { label: t('console.jobs.status') },
                { label: t('console.jobs.held'), number: true },
                { label: t('console.jobs.charged'), number: true },
                { label: t('common.actions') },
              ]}
              rowCount={data.data.length}
            >
              {data.data.map((job) => (
                <tr key={job.id} data-job-id={job.id} data-status={job.status}>
                  <td class="nowrap">{formatDateTime(job.created_at, language)}</td>
                  <td>
                    <code>{job.id}</code>
                  </td>
                  <td>{jobKindLabel(job.kind, t)}</td>
                  <td>{accountName(job.account_id)}</td>
                  <td class="nowrap">
                    <code>{job.model}</code>
                  </td>
                  <td>
                    {consoleJobStatusLabel(job.error?.code === 'cancelled' ? 'cancelled' : job.status, t)}
                    {job.error && <div class="muted small">{job.error.message}</div>}
                  </td>
                  <td class="number">{formatRub(job.held_rub, language)}</td>
                  <td class="number">{formatRub(job.charged_rub, language)}</td>
                  <td>
                    {(job.status === 'queued' || job.status === 'in_progress') && (
                      <ConfirmButton question={t('console.jobs.cancelConfirm', { id: job.id })} onConfirmed={() => cancel(job)}>
                        {t('console.jobs.cancel')}
                        <span class="visually-hidden"> {job.id}</span>
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              ))}
            </ConsoleTable>
        )}
      </LoadedView>
      {jobs.data?.has_more && <p class="muted">{t('console.jobs.more', { count: pageSize })}</p>}
    </>
  );
}
