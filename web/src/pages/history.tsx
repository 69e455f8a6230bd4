// History: the account's ledger, newest first, filtered by kind, model, key and dates, paged
// by the server's cursor; the CSV link exports every row matching the same filters.
import { useState } from 'preact/hooks';
import type { CabinetHistoryItem, CabinetHistoryPage } from '../../../src/cabinet-api/answers.js';
import { api, queryString } from '../api.js';
import type { ApiKeyRow } from '../components/api-keys.js';
import { ErrorMessage, Loading, PageHeading, Pager } from '../components/common.js';
import { ScrollRegion } from '../components/scroll-region.js';
import { useCursorPages, useLoad } from '../data.js';
import { formatDateTime, formatRub } from '../format.js';
import { useI18n, type MessageKey } from '../i18n/index.js';

export const ledgerKinds = ['charge', 'refund', 'topup', 'bonus', 'referral', 'adjustment'] as const;

interface Filters {
  kind: string;
  model: string;
  key: string;
  since: string;
  until: string;
}

const noFilters: Filters = { kind: '', model: '', key: '', since: '', until: '' };
const pageSize = 50;

export function HistoryPage() {
  const { t, language } = useI18n();
  const [draft, setDraft] = useState<Filters>(noFilters);
  const [filters, setFilters] = useState<Filters>(noFilters);
  const pages = useCursorPages();
  const keys = useLoad(() => api<{ data: ApiKeyRow[] }>('/cabinet/api/keys'), []);
  const query = serverFilters(filters);
  const page = useLoad(() => api<CabinetHistoryPage>(`/cabinet/api/history${queryString({ ...query, limit: pageSize, cursor: pages.cursor })}`), [filters, pages.cursor]);
  const csvHref = `/cabinet/api/history${queryString({ ...query, format: 'csv' })}`;
  const field = (name: keyof Filters) => ({
    value: draft[name],
    onInput: (event: Event) => setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value }),
  });
  return (
    <>
      <PageHeading title={t('history.title')}>
        <a class="button" href={csvHref} download="history.csv">
          {t('history.csv')}
        </a>
      </PageHeading>
      <form
        class="filters"
        aria-label={t('history.filters')}
        onSubmit={(event) => {
          event.preventDefault();
          pages.reset();
          setFilters(draft);
        }}
      >
        <label>
          {t('history.kind')}
          <select {...field('kind')}>
            <option value="">{t('common.all')}</option>
            {ledgerKinds.map((kind) => (
              <option key={kind} value={kind}>
                {t(`kind.${kind}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('common.model')}
          <input type="text" {...field('model')} placeholder="sim/chat" />
        </label>
        <label>
          {t('history.key')}
          <select {...field('key')}>
            <option value="">{t('common.all')}</option>
            {(keys.data?.data ?? []).map((key) => (
              <option key={key.id} value={key.id}>
                {key.name ? `${key.name} (${key.prefix}…${key.last4})` : `${key.prefix}…${key.last4}`}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('history.since')}
          <input type="date" {...field('since')} />
        </label>
        <label>
          {t('history.until')}
          <input type="date" {...field('until')} />
        </label>
        <div class="filter-actions">
          <button type="submit">{t('history.apply')}</button>
          <button
            type="button"
            onClick={() => {
              setDraft(noFilters);
              pages.reset();
              setFilters(noFilters);
            }}
          >
            {t('history.reset')}
          </button>
        </div>
      </form>
      <ErrorMessage error={page.error} />
      {page.loading && !page.data && <Loading />}
      {page.data && (
        <>
          {page.data.data.length === 0 ? (
            <p>{t('history.empty')}</p>
          ) : (
            <ScrollRegion label={t('history.table')}>
              <table class="history">
                <caption class="visually-hidden">{t('history.title')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('common.date')}</th>
                    <th scope="col">{t('history.kind')}</th>
                    <th scope="col" class="number">{t('common.amount')}</th>
                    <th scope="col" class="number">{t('history.balanceAfter')}</th>
                    <th scope="col">{t('common.model')}</th>
                    <th scope="col">{t('history.key')}</th>
                    <th scope="col">{t('history.description')}</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.data.map((item) => (
                    <tr key={item.id} data-kind={item.kind}>
                      <td>{formatDateTime(item.created_at, language)}</td>
                      <td>{ledgerKinds.includes(item.kind as never) ? t(`kind.${item.kind}` as MessageKey) : item.kind}</td>
                      <td class={`number ${item.amount_rub.startsWith('-') ? 'negative' : 'positive'}`}>{formatRub(item.amount_rub, language)}</td>
                      <td class="number">{formatRub(item.balance_after_rub, language)}</td>
                      <td>{item.model ? <code>{item.model}</code> : '—'}</td>
                      <td>{keyLabel(item)}</td>
                      <td>
                        {item.description ?? ''}
                        {item.request_id && (
                          <>
                            {' '}
                            <code class="muted small">{item.request_id}</code>
                          </>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
          <Pager hasPrevious={pages.hasPrevious} hasNext={page.data.has_more && page.data.next_cursor !== null} onPrevious={pages.previous} onNext={() => pages.next(page.data!.next_cursor!)} />
        </>
      )}
    </>
  );
}

/**
 * The filters as the API takes them. Dates are UTC days; the API's `until` is exclusive, and
 * the form's "to" day is included, so it is sent as the day after.
 */
function serverFilters(filters: Filters): Filters {
  if (!filters.until) return filters;
  const next = new Date(`${filters.until}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return { ...filters, until: next.toISOString().slice(0, 10) };
}

function keyLabel(item: CabinetHistoryItem): string {
  return item.key_name ?? item.key_id ?? '—';
}
