// The account's payments on the top-up page, newest first, as GET /cabinet/api/payments lists
// them: when, how much (and what a provider in another currency charged), through whom, the
// state in words, and what the balance got (less what was refunded).
import { formatDateTime, formatDecimal, formatRub } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { paymentStatusLabel, providerLabel, type Payment } from '../payments.js';
import { unitsOfRub } from '../top-up.js';

export function PaymentList(props: { payments: readonly Payment[] }) {
  const { t, language } = useI18n();
  return (
    <section aria-labelledby="payments-heading">
      <h2 id="payments-heading">{t('topup.payments')}</h2>
      {props.payments.length === 0 ? (
        <p data-testid="payments-empty">{t('topup.noPayments')}</p>
      ) : (
        <div class="table-scroll" role="region" tabIndex={0} aria-labelledby="payments-heading">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('common.date')}</th>
                <th scope="col" class="number">
                  {t('common.amount')}
                </th>
                <th scope="col">{t('topup.provider')}</th>
                <th scope="col">{t('topup.status')}</th>
                <th scope="col" class="number">
                  {t('topup.credited')}
                </th>
              </tr>
            </thead>
            <tbody>
              {props.payments.map((payment) => (
                <tr key={payment.id} data-payment={payment.id} data-status={payment.status}>
                  <td>{formatDateTime(payment.created_at, language)}</td>
                  <td class="number">
                    {formatRub(payment.amount_rub, language)}
                    {payment.charged.currency.toLowerCase() !== 'rub' && (
                      <div class="muted small">{`${formatDecimal(payment.charged.amount, language)}\u00a0${payment.charged.currency.toUpperCase()}`}</div>
                    )}
                  </td>
                  <td>{providerLabel(payment.provider, t)}</td>
                  <td>{paymentStatusLabel(payment.status, t)}</td>
                  <td class="number">
                    {formatRub(payment.credited_rub, language)}
                    {(unitsOfRub(payment.refunded_rub) ?? 0n) > 0n && <div class="muted small">{t('topup.refundedPart', { amount: formatRub(payment.refunded_rub, language) })}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
