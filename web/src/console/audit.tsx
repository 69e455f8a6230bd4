// The audit log (GET /admin/v1/audit): every change with who made it, newest first, filtered by
// action and account (kept in the address), paged by the server's cursor.
import { Fragment } from 'preact';
import { auditActions } from '../../../src/audit/audit-actions.js';
import { api, queryString } from '../api.js';
import { FilterForm } from '../components/filter-form.js';
import { ConsoleTable } from '../components/console-table.js';
import { ErrorMessage, Loading, PageHeading, Pager } from '../components/common.js';
import { useCursorPages, useLoad } from '../data.js';
import { useQueryFilters } from '../filters.js';
import { useI18n } from '../i18n/index.js';
import { useAccountNames } from './account-names.js';
import { formatMoment } from './console-format.js';

interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string;
  account_id: string | null;
  details: Record<string, unknown>;
}

interface AuditPage {
  data: AuditEntry[];
  has_more: boolean;
  next_cursor: string | null;
}


const emptyFilters = { action: '', account: '' };
const pageSize = 50;

export function AuditPage() {
  const { t, language } = useI18n();
  const filters = useQueryFilters(emptyFilters);
  const pages = useCursorPages();
  const accountName = useAccountNames();
  const applied = filters.applied;
  const page = useLoad(() => api<AuditPage>(`/admin/v1/audit${queryString({ ...applied, limit: pageSize, cursor: pages.cursor })}`), [applied, pages.cursor]);
  return (
    <>
      <PageHeading title={t('console.audit.title')}>
        <button type="button" onClick={page.reload} disabled={page.loading}>
          {t('console.system.refresh')}
        </button>
      </PageHeading>
      <FilterForm
        onApply={() => {
          pages.reset();
          filters.apply();
        }}
        onReset={() => {
          pages.reset();
          filters.reset();
        }}
      >
        <label>
          {t('console.audit.action')}
          <select {...filters.field('action')}>
            <option value="">{t('common.all')}</option>
            {auditActions.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('console.requests.account')}
          <input type="text" {...filters.field('account')} placeholder={t('console.requests.accountPlaceholder')} />
        </label>
      </FilterForm>
      <ErrorMessage error={page.error} />
      {page.loading && !page.data && <Loading />}
      {page.data && (
        <>
          <ConsoleTable
            class="audit"
            caption={t('console.audit.title')}
            empty={t('console.audit.empty')}
            columns={[
              { label: t('console.requests.time') },
              { label: t('console.audit.actor') },
              { label: t('console.audit.action') },
              { label: t('console.audit.target') },
              { label: t('console.requests.account') },
              { label: t('console.audit.details') },
            ]}
            rowCount={page.data.data.length}
          >
            {page.data.data.map((entry) => (
              <tr key={entry.id} data-action={entry.action}>
                <td class="nowrap">{formatMoment(entry.at, language)}</td>
                <td>
                  <code>{entry.actor}</code>
                </td>
                <td class="nowrap">
                  <code>{entry.action}</code>
                </td>
                <td>
                  <code>{entry.target}</code>
                </td>
                <td>{accountName(entry.account_id)}</td>
                <td class="details">
                  <Details details={entry.details} />
                </td>
              </tr>
            ))}
          </ConsoleTable>
          <Pager hasPrevious={pages.hasPrevious} hasNext={page.data.has_more && page.data.next_cursor !== null} onPrevious={pages.previous} onNext={() => pages.next(page.data!.next_cursor!)} />
        </>
      )}
    </>
  );
}

/** The row's details as name: value pairs; a value that is not text as its JSON. */
function Details(props: { details: Record<string, unknown> }) {
  const entries = Object.entries(props.details);
  if (entries.length === 0) return <>—</>;
  return (
    <dl class="facts details">
      {entries.map(([name, value]) => (
        <Fragment key={name}>
          <dt>{name}</dt>
          <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
        </Fragment>
      ))}
    </dl>
  );
}
