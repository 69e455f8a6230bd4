// The audit log (GET /admin/v1/audit): every change with who made it, newest first, filtered by
// action and account (kept in the address), paged by the server's cursor.
import { Fragment } from 'preact';
import { auditActions } from '../../../src/audit/audit-actions.js';
import { api, queryString } from '../api.js';
import { AccountFilter, ChoiceFilter, FilterForm } from '../components/filter-form.js';
import { ConsoleTable } from '../components/console-table.js';
import { LoadedView, PageHeading, Pager, RefreshButton } from '../components/common.js';
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
        <RefreshButton loaded={page} />
      </PageHeading>
      <FilterForm filters={filters} pages={pages}>
        <ChoiceFilter label={t('console.audit.action')} binding={filters.field('action')} choices={auditActions.map((action) => ({ value: action, label: action }))} />
        <AccountFilter binding={filters.field('account')} />
      </FilterForm>
      <LoadedView loaded={page}>
        {(data) => (
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
                rowCount={data.data.length}
              >
                {data.data.map((entry) => (
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
              <Pager hasPrevious={pages.hasPrevious} hasNext={data.has_more && data.next_cursor !== null} onPrevious={pages.previous} onNext={() => pages.next(data.next_cursor!)} />
            </>
        )}
      </LoadedView>
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
