// Refunding a customer's payment from the console: a button on a succeeded payment opens a
// modal dialog (the browser's <dialog>) with the amount (empty: all that is not refunded yet),
// whether the balance may go down to zero when the money is already spent, and a reason →
// POST /admin/v1/payments/:id/refund {amount_rub?, allow_spent, reason?} → the refund. The
// gateway takes the money off the balance first and then asks the provider; it refuses (409
// refund_exceeds_available) when the account has spent part of it, unless allowed to let the
// balance reach zero — the dialog then says so next to that box. The balance never goes below
// zero either way.
import { useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { ErrorMessage } from '../components/common.js';
import { useAction } from '../data.js';
import { formatRub, typedAmount } from '../format.js';
import { useI18n } from '../i18n/index.js';
import type { Payment } from '../payments.js';

/** What POST /admin/v1/payments/:id/refund answers. */
export interface PaymentRefund {
  readonly id: string;
  readonly payment_id: string;
  readonly status: 'pending' | 'succeeded' | 'failed';
  /** What the ledger took back (the share, or less when allowed to reach zero). */
  readonly debit_rub: string;
  /** The share of the payment's credit refunded. */
  readonly share_rub: string;
}


export function RefundButton(props: { payment: Payment; onRefunded: (refund: PaymentRefund) => void }) {
  const { t } = useI18n();
  const dialog = useRef<HTMLDialogElement>(null);
  /** Each opening starts a fresh form (no amount, box or refusal left from the last one). */
  const [opened, setOpened] = useState(0);
  const prefix = `refund-${props.payment.id}`;
  return (
    <>
      <button
        type="button"
        class="danger"
        onClick={() => {
          setOpened(opened + 1);
          dialog.current?.showModal();
        }}
      >
        {t('console.payments.refund.button')}
        <span class="visually-hidden"> {props.payment.id}</span>
      </button>
      <dialog ref={dialog} class="key-change" aria-labelledby={`${prefix}-heading`}>
        <h2 id={`${prefix}-heading`}>{t('console.payments.refund.title', { id: props.payment.id })}</h2>
        {opened > 0 && (
          <RefundForm
            key={opened}
            payment={props.payment}
            prefix={prefix}
            onClose={() => dialog.current?.close()}
            onRefunded={(refund) => {
              dialog.current?.close();
              props.onRefunded(refund);
            }}
          />
        )}
      </dialog>
    </>
  );
}

function RefundForm(props: { payment: Payment; prefix: string; onClose: () => void; onRefunded: (refund: PaymentRefund) => void }) {
  const { t, language } = useI18n();
  const { payment, prefix } = props;
  const [amount, setAmount] = useState('');
  const [allowSpent, setAllowSpent] = useState(false);
  const [reason, setReason] = useState('');
  const { busy, error, run } = useAction();
  const spent = error instanceof ApiError && error.code === 'refund_exceeds_available';
  const fields = { amount_rub: t('console.payments.refund.amount'), reason: t('console.accounts.reason') };
  return (
    <>
      <p>
        {t('console.payments.refund.credited', {
          credited: formatRub(payment.credited_rub, language),
          refunded: formatRub(payment.refunded_rub, language),
        })}
      </p>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            const body: Record<string, unknown> = { allow_spent: allowSpent };
            if (amount.trim() !== '') body.amount_rub = typedAmount(amount);
            if (reason.trim() !== '') body.reason = reason.trim();
            props.onRefunded(await api<PaymentRefund>(`/admin/v1/payments/${encodeURIComponent(payment.id)}/refund`, { method: 'POST', body }));
          });
        }}
      >
        <label>
          {t('console.payments.refund.amount')}
          <input type="text" name="amount_rub" inputMode="decimal" autocomplete="off" value={amount} aria-describedby={`${prefix}-amount-help`} onInput={(event) => setAmount(event.currentTarget.value)} />
        </label>
        <p id={`${prefix}-amount-help`} class="muted small">
          {t('console.payments.refund.amountHelp')}
        </p>
        <label class="inline">
          <input type="checkbox" name="allow_spent" checked={allowSpent} aria-describedby={spent ? `${prefix}-spent` : undefined} onChange={(event) => setAllowSpent(event.currentTarget.checked)} />
          {t('console.payments.refund.allowSpent')}
        </label>
        <label>
          {t('console.accounts.reason')}
          <input type="text" name="reason" maxLength={500} autocomplete="off" value={reason} onInput={(event) => setReason(event.currentTarget.value)} />
        </label>
        <ErrorMessage error={error} fields={fields} />
        {spent && (
          <p id={`${prefix}-spent`} data-testid="refund-spent-hint">
            {t('console.payments.refund.spentHint')}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="danger" disabled={busy}>
            {t('console.payments.refund.submit')}
          </button>
          <button type="button" onClick={props.onClose}>
            {t('keyControls.cancel')}
          </button>
        </div>
      </form>
    </>
  );
}
