// Top up, `/cabinet/topup` (docs/cabinet.md, "Pages"): the balance; the payment form (amount
// presets and a custom amount within payments.min_rub … max_rub, the provider when there are
// several, the bonus tier reached, the charge in a provider's own currency as an estimate), which
// sends the browser to the provider's page; on the way back (`?payment=<id>`) the payment's real
// state; a code to redeem; the account's payments; the referral link; and, for owners, the
// low-balance reminder. Without payments configured the page says so and keeps the code field.
import { useState } from 'preact/hooks';
import type { Overview } from '../../../src/cabinet-api/answers.js';
import { api } from '../api.js';
import { ErrorMessage, fieldOf, Figure, LoadedView, PageHeading } from '../components/common.js';
import { useAction, useLoad, type Loaded } from '../data.js';
import { formatDecimal, formatRub } from '../format.js';
import { useI18n, type MessageKey } from '../i18n/index.js';
import { providerChoiceLabel, type PaymentOffer, type PaymentProviderOffer, type PaymentWithConfirmation } from '../payments.js';
import { hrefOf } from '../router.js';
import { isOwner, useSession } from '../session-context.js';
import { bonusTierOf, chargeEstimate, checkAmount, shortRub, unitsOfRub, type AmountCheck } from '../top-up.js';
import { LowBalanceSettings } from './low-balance.js';
import { PaymentList } from './payment-list.js';
import { PaymentReturn } from './payment-return.js';
import { RedeemCode } from './redeem-code.js';
import { ReferralSection } from './referral.js';

/** The payment the provider sent the browser back with (`?payment=pay_…`), if any. */
function returnedPayment(): string | undefined {
  const id = new URLSearchParams(location.search).get('payment');
  return id ? id : undefined;
}

export function TopUpPage() {
  const { t } = useI18n();
  const { session } = useSession();
  const offer = useLoad(() => api<PaymentOffer>('/cabinet/api/payments'), []);
  const overview = useLoad(() => api<Overview>('/cabinet/api/overview'), []);
  const [returned, setReturned] = useState<string | undefined>(returnedPayment);
  /** After money came in: the balance and the payments again. */
  const refresh = () => {
    overview.reload();
    offer.reload();
  };
  const dismissReturn = () => {
    history.replaceState(history.state, '', hrefOf('/topup'));
    setReturned(undefined);
  };
  return (
    <>
      <PageHeading title={t('topup.title')} />
      <BalanceFigures overview={overview} />
      {returned !== undefined && <PaymentReturn key={returned} id={returned} overview={overview} onSettled={refresh} onDismiss={dismissReturn} />}
      <section aria-labelledby="pay-heading">
        <h2 id="pay-heading">{t('topup.pay')}</h2>
        <LoadedView loaded={offer}>
          {(data) =>
            data.enabled && data.providers.length > 0 ? (
              <PayForm
                offer={data}
                onPaymentSettled={(id) => {
                  history.replaceState(history.state, '', `${hrefOf('/topup')}?payment=${encodeURIComponent(id)}`);
                  setReturned(id);
                }}
              />
            ) : (
              <p data-testid="payments-unavailable">{t('topup.unavailable')}</p>
            )
          }
        </LoadedView>
      </section>
      <RedeemCode onRedeemed={overview.reload} />
      {offer.data?.enabled && <PaymentList payments={offer.data.data} />}
      <ReferralSection />
      {isOwner(session) && <LowBalanceSettings />}
    </>
  );
}

function BalanceFigures(props: { overview: Loaded<Overview> }) {
  const { t, language } = useI18n();
  const { data, error } = props.overview;
  return (
    <section aria-labelledby="topup-balance-heading">
      <h2 id="topup-balance-heading" class="visually-hidden">
        {t('overview.balance')}
      </h2>
      <ErrorMessage error={error} />
      {data && (
        <dl class="figures" data-testid="topup-balance">
          <Figure label={t('overview.balanceTotal')} value={formatRub(data.balance_rub, language)} />
          <Figure label={t('overview.available')} value={formatRub(data.available_rub, language)} />
        </dl>
      )}
    </section>
  );
}

/** "300 ₽", "1 000 ₽": an amount of the offer as a button or a bound shows it. */
function useShortRub(): (units: bigint) => string {
  const { language } = useI18n();
  return (units) => formatRub(shortRub(units), language);
}

function PayForm(props: { offer: PaymentOffer; onPaymentSettled: (id: string) => void }) {
  const { t, language } = useI18n();
  const rub = useShortRub();
  const { offer } = props;
  const min = unitsOfRub(offer.min_rub ?? '') ?? 0n;
  const max = unitsOfRub(offer.max_rub ?? '');
  const presets = (offer.presets_rub ?? []).map(unitsOfRub).filter((units): units is bigint => units !== undefined);
  const [amount, setAmount] = useState('');
  const [providerName, setProviderName] = useState(offer.providers[0]!.name);
  /** The client's check, shown once the customer tried to pay (then kept in step with the field). */
  const [checked, setChecked] = useState(false);
  const { busy, error, run } = useAction();
  const provider = offer.providers.find((candidate) => candidate.name === providerName) ?? offer.providers[0]!;
  const check = checkAmount(amount, { min_rub: offer.min_rub ?? '0', max_rub: offer.max_rub ?? '999999999' });
  const bounds = { min: rub(min), max: max === undefined ? '—' : rub(max) };
  const problem = checked && !check.ok ? problemMessage(check, t, bounds) : undefined;
  const fields = { amount_rub: t('topup.amount'), provider: t('topup.provider') };
  const serverFieldError = fieldOf(error, fields) === 'amount_rub';
  const tier = check.ok ? bonusTierOf(check.units, offer.bonus_tiers ?? []) : undefined;
  return (
    <form
      class="stacked"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setChecked(true);
        if (!check.ok) {
          document.getElementById('topup-amount')?.focus();
          return;
        }
        void run(async () => {
          const created = await api<PaymentWithConfirmation>('/cabinet/api/payments', { method: 'POST', body: { provider: provider.name, amount_rub: check.amountRub, locale: language } });
          // To the provider's page; it sends the browser back to /cabinet/topup?payment=<id>.
          if (created.confirmation_url) window.location.assign(created.confirmation_url);
          else props.onPaymentSettled(created.id);
        });
      }}
    >
      {presets.length > 0 && (
        <div class="actions" role="group" aria-label={t('topup.presets')}>
          {presets.map((units) => (
            <button key={units.toString()} type="button" aria-pressed={check.ok && check.units === units} onClick={() => setAmount(shortRub(units))}>
              {rub(units)}
            </button>
          ))}
        </div>
      )}
      <label>
        {t('topup.amount')}
        <input
          id="topup-amount"
          type="text"
          name="amount_rub"
          inputMode="decimal"
          autocomplete="off"
          value={amount}
          aria-invalid={problem !== undefined || serverFieldError ? true : undefined}
          aria-describedby={['topup-amount-help', problem !== undefined ? 'topup-amount-problem' : undefined, serverFieldError ? 'topup-pay-error' : undefined].filter(Boolean).join(' ')}
          onInput={(event) => setAmount(event.currentTarget.value)}
        />
      </label>
      <p id="topup-amount-help" class="muted small">
        {t('topup.bounds', bounds)}
      </p>
      {problem !== undefined && (
        <p id="topup-amount-problem" class="error" role="alert" data-testid="amount-problem">
          {problem}
        </p>
      )}
      <BonusNote offer={offer} reached={tier} />
      {offer.providers.length > 1 ? (
        <fieldset>
          <legend>{t('topup.provider')}</legend>
          {offer.providers.map((candidate) => (
            <label key={candidate.name} class="inline">
              <input type="radio" name="provider" value={candidate.name} checked={candidate.name === provider.name} onChange={() => setProviderName(candidate.name)} />
              <span>
                {providerChoiceLabel(candidate.name, t)}
                <ChargeEstimate provider={candidate} check={check} />
              </span>
            </label>
          ))}
        </fieldset>
      ) : (
        <p>
          {t('topup.through', { provider: providerChoiceLabel(provider.name, t) })}
          <ChargeEstimate provider={provider} check={check} />
        </p>
      )}
      <ErrorMessage error={error} id="topup-pay-error" fields={fields} />
      <div>
        <button type="submit" class="primary" disabled={busy}>
          {check.ok ? t('topup.payAmount', { amount: rub(check.units) }) : t('topup.payButton')}
        </button>
      </div>
      <p class="muted small">{t('topup.redirectNote')}</p>
    </form>
  );
}

/** Why the typed amount cannot be paid, naming the bounds. */
function problemMessage(failed: Extract<AmountCheck, { ok: false }>, t: (key: MessageKey, params?: Record<string, string>) => string, bounds: { min: string; max: string }): string {
  if (failed.problem === 'range') return t('topup.outOfBounds', bounds);
  if (failed.problem === 'format') return t('topup.badAmount');
  return t('topup.noAmount', bounds);
}

/** For a provider charging in another currency: what it will take, rounded up to its minor unit (an estimate: the provider's own rounding and the card's bank may differ). */
function ChargeEstimate(props: { provider: PaymentProviderOffer; check: AmountCheck }) {
  const { t, language } = useI18n();
  const { provider, check } = props;
  if (provider.currency.toLowerCase() === 'rub' || provider.rub_rate === null || !check.ok) return null;
  const estimate = chargeEstimate(check.units, provider.currency, provider.rub_rate);
  if (estimate === undefined) return null;
  return (
    <span class="muted small" data-testid={`estimate-${provider.name}`}>
      {' '}
      {t('topup.estimate', { amount: `${formatDecimal(estimate, language)}\u00a0${provider.currency.toUpperCase()}`, rate: formatDecimal(provider.rub_rate, language), currency: provider.currency.toUpperCase() })}
    </span>
  );
}

/** The bonus tiers as terms, and the one this amount reaches. */
function BonusNote(props: { offer: PaymentOffer; reached: { from_rub: string; percent: string } | undefined }) {
  const { t, language } = useI18n();
  const rub = useShortRub();
  const tiers = props.offer.bonus_tiers ?? [];
  if (tiers.length === 0) return null;
  const terms = tiers
    .map((tier) => ({ tier, from: unitsOfRub(tier.from_rub) ?? 0n }))
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0))
    .map(({ tier, from }) => t('topup.bonusTier', { percent: formatDecimal(tier.percent, language), from: rub(from) }))
    .join('; ');
  return (
    <div aria-live="polite">
      <p class="muted small">{t('topup.bonusTerms', { tiers: terms })}</p>
      {props.reached && <p data-testid="bonus-reached">{t('topup.bonusReached', { percent: formatDecimal(props.reached.percent, language) })}</p>}
    </div>
  );
}
