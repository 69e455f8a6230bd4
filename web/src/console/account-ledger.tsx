// An account's ledger in the console (GET /admin/v1/accounts/:id/transactions): every row,
// newest first, paged by the server's cursor, with the amounts exactly as the API states them.
// A charge not yet refunded has a Refund button that asks first (the shared ConfirmButton) and
// gives the charge back whole through POST …/refund, naming it by its ledger row — never
// ambiguous, unlike a request id. The API refunds a charge once, so a second click or a second
// operator gets its already_refunded, shown here; the page then reloads the account, whose new
// balance reloads this list too.
import { useState } from 'preact/hooks';
import type { HistoryItem } from '../../../src/billing/history-item.js';
import { api, queryString } from '../api.js';
import { ErrorMessage, LoadedView, Pager } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ScrollRegion } from '../components/scroll-region.js';
import { useCursorPages, useLoad } from '../data.js';
import { formatDateTime, formatRub } from '../format.js';
import { useI18n, type MessageKey } from '../i18n/index.js';
import { ledgerKinds } from '../pages/history.js';

/** A row as the API gives it: the /v1/history item and, for a charge given back, its refund's id. */
export interface AdminTransaction extends HistoryItem {
  refunded_by: string | null;
}

interface TransactionPage {
  data: AdminTransaction[];
  has_more: boolean;
  next_cursor: string | null;
}

/** What POST …/refund answers (as `gateway balance refund --json`). */
interface Refund {
  transaction_id: string;
  amount_rub: string;
  balance_rub: string;
}

const pageSize = 20;

export function AccountLedger(props: { accountId: string; balanceRub: string; onRefunded: () => void }) {
  const { t, language } = useI18n();
  const pages = useCursorPages();
  const path = `/admin/v1/accounts/${encodeURIComponent(props.accountId)}`;
  // The balance among the dependencies: a top-up, adjustment or refund made on this page shows here at once.
  const ledger = useLoad(() => api<TransactionPage>(`${path}/transactions${queryString({ limit: pageSize, cursor: pages.cursor })}`), [path, pages.cursor, props.balanceRub]);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const refund = async (row: AdminTransaction) => {
    setNotice(undefined);
    setError(undefined);
    try {
      const done = await api<Refund>(`${path}/refund`, { method: 'POST', body: { transaction_id: row.id } });
      setNotice(t('console.ledger.refunded', { amount: formatRub(done.amount_rub, language), balance: formatRub(done.balance_rub, language) }));
    } catch (failure) {
      setError(failure);
    }
    // Refunded now or by someone else before: either way the list and the balance are stale.
    pages.reset();
    ledger.reload();
    props.onRefunded();
  };
  const kindLabel = (kind: string) => (ledgerKinds.includes(kind as never) ? t(`kind.${kind}` as MessageKey) : kind);
  return (
    <section aria-labelledby="ledger-heading">
      <h2 id="ledger-heading">{t('console.ledger.title')}</h2>
      {notice && (
        <p role="status" class="notice" data-testid="refund-done">
          {notice}
        </p>
      )}
      <ErrorMessage error={error} />
      <LoadedView loaded={ledger}>
        {(data) => (
          <>
            {data.data.length === 0 ? (
              <p>{t('console.ledger.empty')}</p>
            ) : (
              <ScrollRegion label={t('console.ledger.rows')}>
                <table class="console-table ledger">
                  <caption class="visually-hidden">{t('console.ledger.title')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('common.date')}</th>
                      <th scope="col">{t('history.kind')}</th>
                      <th scope="col" class="number">
                        {t('common.amount')}
                      </th>
                      <th scope="col" class="number">
                        {t('history.balanceAfter')}
                      </th>
                      <th scope="col">{t('common.model')}</th>
                      <th scope="col">{t('history.description')}</th>
                      <th scope="col">{t('common.actions')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.data.map((row) => (
                      <tr key={row.id} data-transaction-id={row.id} data-kind={row.kind}>
                        <td class="nowrap">{formatDateTime(row.created_at, language)}</td>
                        <td>{kindLabel(row.kind)}</td>
                        <td class={`number nowrap ${row.amount_rub.startsWith('-') ? 'negative' : 'positive'}`}>{formatRub(row.amount_rub, language)}</td>
                        <td class="number nowrap">{formatRub(row.balance_after_rub, language)}</td>
                        <td class="nowrap">{row.model ? <code>{row.model}</code> : '—'}</td>
                        <td>
                          {row.description ?? ''}
                          {row.request_id && (
                            <>
                              {' '}
                              <code class="muted small">{row.request_id}</code>
                            </>
                          )}
                        </td>
                        <td class="nowrap">
                          {row.kind === 'charge' && row.refunded_by === null && (
                            <ConfirmButton
                              plain
                              question={t('console.ledger.refundConfirm', { amount: formatRub(row.amount_rub.replace(/^-/, ''), language), reference: row.request_id ?? row.id })}
                              onConfirmed={() => refund(row)}
                            >
                              {t('console.ledger.refund')}
                              <span class="visually-hidden"> {row.id}</span>
                            </ConfirmButton>
                          )}
                          {row.refunded_by !== null && <span class="muted">{t('console.ledger.refundedBy', { id: row.refunded_by })}</span>}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </ScrollRegion>
            )}
            <Pager hasPrevious={pages.hasPrevious} hasNext={data.has_more && data.next_cursor !== null} onPrevious={pages.previous} onNext={() => pages.next(data.next_cursor!)} />
          </>
        )}
      </LoadedView>
    </section>
  );
}
