// Customers' payments of every account (GET /admin/v1/payments), newest first, filtered by status
// and account (kept in the address), paged by `before` (the last payment shown): when, who, how
// much and through whom, the state, what was credited and refunded. A succeeded payment can be
// refunded (payment-refund.tsx). A gateway without payments (or without the route) says so.
import { useState } from 'preact/hooks';
import { api, ApiError, queryString } from '../api.js';
import { ConsoleTable } from '../components/console-table.js';
import { ErrorMessage, Loading, PageHeading, Pager, RefreshButton } from '../components/common.js';
import { AccountFilter, ChoiceFilter, FilterForm } from '../components/filter-form.js';
import { useCursorPages, useLoad } from '../data.js';
import { useQueryFilters } from '../filters.js';
import { formatDecimal, formatRub } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { paymentStatuses, paymentStatusLabel, providerLabel, type Payment } from '../payments.js';
import { unitsOfRub } from '../top-up.js';
import { formatMoment } from './console-format.js';
import { RefundButton, type PaymentRefund } from './payment-refund.js';

export interface AdminPayment extends Payment {
  readonly account_id: string;
  readonly account_name: string | null;
  readonly email: string | null;
}

interface AdminPaymentPage {
  readonly object: 'list';
  readonly data: readonly AdminPayment[];
  readonly has_more: boolean;
}

const emptyFilters = { status: '', account: '' };
const pageSize = 50;

/** A list the gateway does not have: no such route (an older gateway) or payments not configured. */
export const notOffered = (error: unknown) => error instanceof ApiError && error.status === 404;

export function PaymentsPage() {
  const { t, language } = useI18n();
  const filters = useQueryFilters(emptyFilters);
  const pages = useCursorPages();
  const applied = filters.applied;
  const payments = useLoad(() => api<AdminPaymentPage>(`/admin/v1/payments${queryString({ ...applied, limit: pageSize, before: pages.cursor })}`), [applied, pages.cursor]);
  const [refunded, setRefunded] = useState<PaymentRefund | undefined>(undefined);
  const data = payments.data;
  return (
    <>
      <PageHeading title={t('console.payments.title')}>
        <RefreshButton loaded={payments} />
      </PageHeading>
      <FilterForm filters={filters} pages={pages}>
        <ChoiceFilter label={t('console.payments.status')} binding={filters.field('status')} choices={paymentStatuses.map((status) => ({ value: status, label: paymentStatusLabel(status, t) }))} />
        <AccountFilter binding={filters.field('account')} />
      </FilterForm>
      {refunded && (
        <p role="status" class="notice" data-testid="refund-done">
          {t(`console.payments.refund.done.${refunded.status}`, { id: refunded.id, debit: formatRub(refunded.debit_rub, language), share: formatRub(refunded.share_rub, language) })}
        </p>
      )}
      {notOffered(payments.error) ? (
        <p data-testid="payments-not-offered">{t('console.payments.notOffered')}</p>
      ) : (
        <ErrorMessage error={payments.error} />
      )}
      {payments.loading && !data && <Loading />}
      {data && (
        <>
          <ConsoleTable
            class="payments"
            caption={t('console.payments.title')}
            empty={t('console.payments.empty')}
            columns={[
              { label: t('console.jobs.created') },
              { label: t('console.payments.id') },
              { label: t('console.requests.account') },
              { label: t('topup.provider') },
              { label: t('console.payments.status') },
              { label: t('common.amount'), number: true },
              { label: t('topup.credited'), number: true },
              { label: t('console.payments.refunded'), number: true },
              { label: t('common.actions') },
            ]}
            rowCount={data.data.length}
          >
            {data.data.map((payment) => (
              <tr key={payment.id} data-payment={payment.id} data-status={payment.status}>
                <td class="nowrap">{formatMoment(payment.created_at, language)}</td>
                <td>
                  <code>{payment.id}</code>
                </td>
                <td>
                  {payment.account_name ?? payment.account_id}
                  {payment.email && <div class="muted small">{payment.email}</div>}
                </td>
                <td>{providerLabel(payment.provider, t)}</td>
                <td>
                  {paymentStatusLabel(payment.status, t)}
                  {payment.failure && <div class="muted small">{payment.failure}</div>}
                </td>
                <td class="number">
                  {formatRub(payment.amount_rub, language)}
                  {payment.charged.currency.toLowerCase() !== 'rub' && <div class="muted small">{`${formatDecimal(payment.charged.amount, language)}\u00a0${payment.charged.currency.toUpperCase()}`}</div>}
                </td>
                <td class="number">{formatRub(payment.credited_rub, language)}</td>
                <td class="number">{(unitsOfRub(payment.refunded_rub) ?? 0n) > 0n ? formatRub(payment.refunded_rub, language) : '—'}</td>
                <td>
                  {payment.status === 'succeeded' && (
                    <RefundButton
                      payment={payment}
                      onRefunded={(refund) => {
                        setRefunded(refund);
                        payments.reload();
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </ConsoleTable>
          <Pager
            hasPrevious={pages.hasPrevious}
            hasNext={data.has_more && data.data.length > 0}
            onPrevious={pages.previous}
            onNext={() => pages.next(data.data[data.data.length - 1]!.id)}
          />
        </>
      )}
    </>
  );
}
