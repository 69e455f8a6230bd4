// The two ways the operator moves an account's money, each a ledger row with a reason: a
// top-up (POST /admin/v1/accounts/:id/topup; a top-up, bonus or referral credit) and an
// adjustment (POST …/adjust; positive or negative, never below the available money). The
// amount is sent as the text typed — the API parses it exactly, and its refusal (a bad amount,
// an adjustment taking more than is available) is shown under the field it names. The answer's
// amount and balance are shown as the API states them.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorMessage, fieldOf } from '../components/common.js';
import { useAction } from '../data.js';
import { formatRub } from '../format.js';
import { useI18n, type MessageKey } from '../i18n/index.js';

/** What both routes answer: the ledger row written and the balance after it. */
export interface Credit {
  transaction_id: string;
  account_id: string;
  kind: string;
  amount_rub: string;
  balance_rub: string;
  reason: string | null;
}

const creditKinds = ['topup', 'bonus', 'referral'] as const;

type Operation = 'topup' | 'adjust';

const titles: Record<Operation, MessageKey> = { topup: 'console.accounts.topup', adjust: 'console.accounts.adjust' };
const helps: Record<Operation, MessageKey> = { topup: 'console.accounts.topupHelp', adjust: 'console.accounts.adjustHelp' };
const buttons: Record<Operation, MessageKey> = { topup: 'console.accounts.topupButton', adjust: 'console.accounts.adjustButton' };

/**
 * The amount as the page writes amounts in Russian ("1 234,5") is read too: spaces dropped and,
 * when there is no decimal point, a comma read as one. Nothing else is changed: the API parses
 * the text exactly and refuses what is not an amount ("1,234.5" included).
 */
function amountText(typed: string): string {
  const text = typed.replace(/\s/g, ''); // \s covers the no-break space too
  return text.includes('.') ? text : text.replace(',', '.');
}

export function MoneyForm(props: { accountId: string; operation: Operation; onDone: () => void }) {
  const { t, language } = useI18n();
  const [amount, setAmount] = useState('');
  const [kind, setKind] = useState<string>('topup');
  const [reason, setReason] = useState('');
  const { busy, error, run } = useAction();
  const [done, setDone] = useState<Credit | undefined>(undefined);
  const id = (name: string) => `${props.operation}-${name}`;
  const fields = { amount_rub: t('console.accounts.amount'), reason: t('console.accounts.reason'), kind: t('console.accounts.kind') };
  const invalidField = fieldOf(error, fields);
  /** The field the error names points at the message, as does a screen reader's description of it. */
  const describedBy = (field: string, help?: string) => [help, invalidField === field ? id('error') : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <section aria-labelledby={id('heading')}>
      <h2 id={id('heading')}>{t(titles[props.operation])}</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          setDone(undefined);
          void run(async () => {
            const body = props.operation === 'topup' ? { amount_rub: amountText(amount), kind, reason } : { amount_rub: amountText(amount), reason };
            setDone(await api<Credit>(`/admin/v1/accounts/${encodeURIComponent(props.accountId)}/${props.operation}`, { method: 'POST', body }));
            setAmount('');
            setReason('');
            props.onDone();
          });
        }}
      >
        <div class="row">
          <label>
            {t('console.accounts.amount')}
            <input
              type="text"
              name="amount_rub"
              value={amount}
              required
              inputMode={props.operation === 'topup' ? 'decimal' : 'text'}
              autocomplete="off"
              aria-invalid={invalidField === 'amount_rub' ? true : undefined}
              aria-describedby={describedBy('amount_rub', id('help'))}
              onInput={(event) => setAmount(event.currentTarget.value)}
            />
          </label>
          {props.operation === 'topup' && (
            <label>
              {t('console.accounts.kind')}
              <select name="kind" value={kind} aria-invalid={invalidField === 'kind' ? true : undefined} aria-describedby={describedBy('kind')} onChange={(event) => setKind(event.currentTarget.value)}>
                {creditKinds.map((candidate) => (
                  <option key={candidate} value={candidate}>
                    {t(`kind.${candidate}`)}
                  </option>
                ))}
              </select>
            </label>
          )}
        </div>
        <p id={id('help')} class="muted small">
          {t(helps[props.operation])}
        </p>
        <label>
          {t('console.accounts.reason')}
          <input
            type="text"
            name="reason"
            value={reason}
            required
            maxLength={500}
            autocomplete="off"
            aria-invalid={invalidField === 'reason' ? true : undefined}
            aria-describedby={describedBy('reason')}
            onInput={(event) => setReason(event.currentTarget.value)}
          />
        </label>
        <ErrorMessage error={error} fields={fields} id={id('error')} />
        {done && (
          <p role="status" data-testid={id('done')}>
            {t('console.accounts.recorded', { amount: formatRub(done.amount_rub, language), balance: formatRub(done.balance_rub, language) })}
          </p>
        )}
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {t(buttons[props.operation])}
          </button>
        </div>
      </form>
    </section>
  );
}
