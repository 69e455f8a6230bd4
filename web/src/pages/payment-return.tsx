// The top-up page after the provider's page sent the browser back (`/cabinet/topup?payment=<id>`):
// GET /cabinet/api/payments/<id>, which asks the provider, so what the page says is the
// payment's real state, not what the address claims. Succeeded: the credit and the new balance.
// Still pending (the customer was quicker than the provider's confirmation): asked again a few
// times, further apart each time, then the page says the money will be credited once the
// provider confirms (the notification or the gateway's sweeper does it; the list shows it then).
// Cancelled: nothing was charged, try again.
import { useEffect, useState } from 'preact/hooks';
import type { Overview } from '../../../src/cabinet-api/answers.js';
import { api } from '../api.js';
import { ErrorMessage, Loading } from '../components/common.js';
import type { Loaded } from '../data.js';
import { formatRub } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { providerLabel, type PaymentWithConfirmation } from '../payments.js';

/** The waits before asking again about a payment still pending: about 20 seconds in all. */
export const pendingRetryDelays: readonly number[] = [1_000, 2_000, 4_000, 6_000, 8_000];

export function PaymentReturn(props: { id: string; overview: Loaded<Overview>; onSettled: () => void; onDismiss: () => void }) {
  const { t, language } = useI18n();
  const [payment, setPayment] = useState<PaymentWithConfirmation | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  /** Still asking again about a pending payment. */
  const [waiting, setWaiting] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setWaiting(true);
    const ask = async (attempt: number) => {
      try {
        const answer = await api<PaymentWithConfirmation>(`/cabinet/api/payments/${encodeURIComponent(props.id)}`);
        if (stopped) return;
        setPayment(answer);
        setError(undefined);
        if (answer.status === 'pending' && attempt < pendingRetryDelays.length) {
          timer = setTimeout(() => void ask(attempt + 1), pendingRetryDelays[attempt]);
          return;
        }
        setWaiting(false);
        if (answer.status !== 'pending') props.onSettled();
      } catch (reason) {
        if (stopped) return;
        setError(reason);
        setWaiting(false);
      }
    };
    void ask(0);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [props.id, round]);

  let body;
  if (payment === undefined) body = error === undefined ? <Loading /> : null;
  else {
    const provider = providerLabel(payment.provider, t);
    const amount = formatRub(payment.amount_rub, language);
    if (payment.status === 'succeeded') {
      const balance = props.overview.loading ? undefined : props.overview.data?.balance_rub;
      body = (
        <>
          <p class="notice">{t('topup.return.succeeded', { amount: formatRub(payment.credited_rub ?? payment.amount_rub, language) })}</p>
          {balance !== undefined && <p data-testid="return-balance">{t('topup.return.balance', { balance: formatRub(balance, language) })}</p>}
        </>
      );
    } else if (payment.status === 'cancelled') {
      body = (
        <>
          <p>{t('topup.return.cancelled', { amount, provider })}</p>
          {payment.failure && <p class="muted small">{t('topup.return.failure', { reason: payment.failure })}</p>}
          <button
            type="button"
            class="primary"
            onClick={() => {
              props.onDismiss();
              document.getElementById('topup-amount')?.focus();
            }}
          >
            {t('topup.return.tryAgain')}
          </button>
        </>
      );
    } else if (payment.status === 'refunded') {
      body = <p>{t('topup.return.refunded', { amount })}</p>;
    } else if (waiting) {
      body = <p>{t('topup.return.checking', { amount, provider })}</p>;
    } else {
      body = (
        <>
          <p>{t('topup.return.pending', { amount, provider })}</p>
          <div class="actions">
            <button type="button" onClick={() => setRound(round + 1)}>
              {t('topup.return.checkAgain')}
            </button>
            {payment.confirmation_url && <a href={payment.confirmation_url}>{t('topup.return.continue', { provider })}</a>}
          </div>
        </>
      );
    }
  }
  return (
    <section aria-labelledby="return-heading" class="panel payment-return" data-testid="payment-return" data-status={payment?.status}>
      <h2 id="return-heading">{t('topup.return.title')}</h2>
      <div role="status">{body}</div>
      <ErrorMessage error={error} />
      <p>
        <button type="button" onClick={props.onDismiss}>
          {t('common.close')}
        </button>
      </p>
    </section>
  );
}
