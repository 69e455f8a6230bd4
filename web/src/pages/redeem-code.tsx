// A redemption code on the top-up page: POST /cabinet/api/codes/redeem {code} credits the
// code's amount at once (a `bonus` row naming its batch) → {amount_rub, balance_rub,
// transaction_id}. The refusals a customer meets are said in the page's language (the server's
// messages are English): a code that is unknown, used up, expired or disabled is one answer
// (code_invalid), and too many attempts are 429; anything else shows the server's message.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { ErrorMessage } from '../components/common.js';
import { useAction } from '../data.js';
import { formatRub } from '../format.js';
import { useI18n, type MessageKey } from '../i18n/index.js';

interface Redeemed {
  readonly amount_rub: string;
  readonly balance_rub: string;
  readonly transaction_id: string;
}

/** The page's own words for a refusal of a code, when it has them. */
export function redeemRefusalKey(error: unknown): MessageKey | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'code_invalid') return 'topup.code.invalid';
  if (error.status === 429) return 'topup.code.tooMany';
  // A gateway without the route: the cabinet's page route answers a POST 405 (and an unknown path 404).
  if (error.status === 405 || (error.status === 404 && error.code === 'unknown_endpoint')) return 'topup.code.unavailable';
  return undefined;
}

export function RedeemCode(props: { onRedeemed: () => void }) {
  const { t, language } = useI18n();
  const [code, setCode] = useState('');
  const [redeemed, setRedeemed] = useState<Redeemed | undefined>(undefined);
  const { busy, error, run } = useAction();
  const refusal = redeemRefusalKey(error);
  return (
    <section aria-labelledby="redeem-heading">
      <h2 id="redeem-heading">{t('topup.code.title')}</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          setRedeemed(undefined);
          void run(async () => {
            setRedeemed(await api<Redeemed>('/cabinet/api/codes/redeem', { method: 'POST', body: { code: code.trim() } }));
            setCode('');
            props.onRedeemed();
          });
        }}
      >
        <label>
          {t('topup.code.label')}
          <input
            type="text"
            name="code"
            autocomplete="off"
            spellcheck={false}
            required
            maxLength={200}
            value={code}
            aria-invalid={error !== undefined ? true : undefined}
            aria-describedby={error !== undefined ? 'redeem-error' : undefined}
            onInput={(event) => setCode(event.currentTarget.value)}
          />
        </label>
        {refusal === undefined ? (
          <ErrorMessage error={error} id="redeem-error" fields={{ code: t('topup.code.label') }} />
        ) : (
          <p class="error" role="alert" id="redeem-error">
            {t(refusal)}
          </p>
        )}
        {redeemed && (
          <p role="status" class="notice" data-testid="redeemed">
            {t('topup.code.redeemed', { amount: formatRub(redeemed.amount_rub, language), balance: formatRub(redeemed.balance_rub, language) })}
          </p>
        )}
        <div>
          <button type="submit" disabled={busy}>
            {t('topup.code.button')}
          </button>
        </div>
      </form>
    </section>
  );
}
