// The request log (GET /admin/v1/request-log): every /v1 request and every call the web
// cabinet's pages made (/cabinet/api/…), newest first, filtered by source (the API's traffic or
// the cabinet's; both unless chosen), outcome or status, model, key and account (kept in the
// address), paged by the server's cursor. A failure shows the error its client got and, when
// an upstream failed, the upstream's status.
import { Fragment } from 'preact';
import { api, queryString } from '../api.js';
import { AccountFilter, FilterForm } from '../components/filter-form.js';
import { ConsoleTable } from '../components/console-table.js';
import { LoadedView, PageHeading, Pager, RefreshButton } from '../components/common.js';
import { useCursorPages, useLoad } from '../data.js';
import { useQueryFilters } from '../filters.js';
import { formatRub } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { useAccountNames } from './account-names.js';
import { formatMilliseconds, formatMoment } from './console-format.js';

interface RequestLogEntry {
  id: number;
  request_id: string;
  created_at: string;
  method: string;
  route: string;
  source: RequestSource;
  status: number;
  duration_ms: number;
  model: string | null;
  account_id: string | null;
  key_id: string | null;
  provider: string | null;
  charged_rub: string;
  error: { code: string; message: string | null; upstream_status: string | null } | null;
}

interface RequestLogPage {
  data: RequestLogEntry[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The API's `status` values offered in the list; any other code is typed. */
const outcomes = ['failed', 'ok', '4xx', '5xx'] as const;
/** The request log's sources (src/observability/request-source.ts). */
const sources = ['api', 'cabinet', 'bot'] as const;
type RequestSource = (typeof sources)[number];
const emptyFilters = { source: '', status: '', model: '', key: '', account: '' };
const pageSize = 50;

export function RequestsPage() {
  const { t, language } = useI18n();
  const filters = useQueryFilters(emptyFilters);
  const pages = useCursorPages();
  const accountName = useAccountNames();
  const applied = filters.applied;
  const page = useLoad(() => api<RequestLogPage>(`/admin/v1/request-log${queryString({ ...applied, limit: pageSize, cursor: pages.cursor })}`), [applied, pages.cursor]);
  const typedStatus = (outcomes as readonly string[]).includes(filters.draft.status) ? '' : filters.draft.status;
  return (
    <>
      <PageHeading title={t('console.requests.title')}>
        <RefreshButton loaded={page} />
      </PageHeading>
      <FilterForm filters={filters} pages={pages}>
        <label>
          {t('console.requests.source')}
          <select {...filters.field('source')}>
            <option value="">{t('common.all')}</option>
            {sources.map((source) => (
              <option key={source} value={source}>
                {t(`console.requests.source.${source}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('console.requests.outcome')}
          <select
            value={typedStatus === '' ? filters.draft.status : ''}
            onInput={(event) => filters.setDraft({ ...filters.draft, status: event.currentTarget.value })}
          >
            <option value="">{t('common.all')}</option>
            {outcomes.map((outcome) => (
              <option key={outcome} value={outcome}>
                {t(`console.requests.outcome.${outcome}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('console.requests.statusCode')}
          <input
            type="text"
            inputMode="numeric"
            size={5}
            placeholder="502"
            value={typedStatus}
            onInput={(event) => filters.setDraft({ ...filters.draft, status: event.currentTarget.value.trim() })}
          />
        </label>
        <label>
          {t('common.model')}
          <input type="text" {...filters.field('model')} placeholder="sim/chat" />
        </label>
        <label>
          {t('console.requests.key')}
          <input type="text" {...filters.field('key')} placeholder="key_…" />
        </label>
        <AccountFilter binding={filters.field('account')} />
      </FilterForm>
      <LoadedView loaded={page}>
        {(data) => (
            <>
              <ConsoleTable
                class="request-log"
                caption={t('console.requests.title')}
                empty={t('console.requests.empty')}
                columns={[
                  { label: t('console.requests.time') },
                  { label: t('console.requests.accountKey') },
                  { label: t('common.model') },
                  { label: t('console.requests.route') },
                  { label: t('console.requests.source') },
                  { label: t('console.requests.status') },
                  { label: t('console.requests.latency'), number: true },
                  { label: t('console.requests.charge'), number: true },
                ]}
                rowCount={data.data.length}
              >
                {data.data.map((entry) => (
                  <Fragment key={entry.id}>
                    <tr data-request-id={entry.request_id} data-status={entry.status} data-source={entry.source} class={entry.error ? 'failed' : undefined}>
                      <td class="nowrap">{formatMoment(entry.created_at, language)}</td>
                      <td>
                        {accountName(entry.account_id)}
                        {entry.key_id && (
                          <div>
                            <code class="small">{entry.key_id}</code>
                          </div>
                        )}
                      </td>
                      <td class="nowrap">{entry.model ? <code>{entry.model}</code> : '—'}</td>
                      <td>
                        <code>
                          {entry.method} {entry.route}
                        </code>
                        {entry.provider && <div class="muted small">{t('console.requests.provider', { provider: entry.provider })}</div>}
                      </td>
                      <td>{t(`console.requests.source.${entry.source}`)}</td>
                      <td class={entry.error ? 'negative' : undefined}>{entry.status}</td>
                      <td class="number">{formatMilliseconds(entry.duration_ms, language)}</td>
                      <td class="number">{formatRub(entry.charged_rub, language)}</td>
                    </tr>
                    {entry.error && (
                      <tr class="failure-row" data-failure-of={entry.request_id}>
                        <td />
                        <td colSpan={7}>
                          <FailureDetails error={entry.error} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </ConsoleTable>
              <Pager hasPrevious={pages.hasPrevious} hasNext={data.has_more && data.next_cursor !== null} onPrevious={pages.previous} onNext={() => pages.next(data.next_cursor!)} />
            </>
        )}
      </LoadedView>
    </>
  );
}

/** What a failed request's client was told, and the upstream's status when an upstream failed. */
function FailureDetails(props: { error: NonNullable<RequestLogEntry['error']> }) {
  const { t } = useI18n();
  const { error } = props;
  return (
    <div class="failure small">
      {error.upstream_status && <span class="upstream-status">{t('console.requests.upstreamStatus', { status: error.upstream_status })} · </span>}
      <code>{error.code}</code>
      {error.message && <>: {error.message}</>}
    </div>
  );
}
