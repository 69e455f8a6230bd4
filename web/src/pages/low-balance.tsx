// The low-balance reminder on the top-up page, for owners (it is the account's setting): GET
// /cabinet/api/low-balance → {threshold_rub, default_threshold_rub, webhook_url}; PUT the two
// the account sets. When the available money falls below the threshold the account's owners
// get one email (and, with an address, a signed webhook), and the next only after the balance
// rose above it and fell again. An empty threshold follows the gateway's default. Left out on
// a gateway without the route.
import { useEffect, useState } from 'preact/hooks';
import { api, unlessMissing } from '../api.js';
import { ErrorMessage, fieldOf } from '../components/common.js';
import { useAction, useLoad } from '../data.js';
import { formatRub, typedAmount } from '../format.js';
import { useI18n } from '../i18n/index.js';

interface LowBalance {
  readonly threshold_rub: string | null;
  readonly default_threshold_rub: string | null;
  readonly webhook_url: string | null;
}


export function LowBalanceSettings() {
  const { t } = useI18n();
  const settings = useLoad(() => unlessMissing(api<LowBalance>('/cabinet/api/low-balance')), []);
  if (settings.error !== undefined) return <ErrorMessage error={settings.error} />;
  if (!settings.data) return null;
  return (
    <section aria-labelledby="low-balance-heading">
      <h2 id="low-balance-heading">{t('topup.lowBalance.title')}</h2>
      <LowBalanceForm settings={settings.data} />
    </section>
  );
}

function LowBalanceForm(props: { settings: LowBalance }) {
  const { t, language } = useI18n();
  const [threshold, setThreshold] = useState(props.settings.threshold_rub ?? '');
  const [webhookUrl, setWebhookUrl] = useState(props.settings.webhook_url ?? '');
  const [saved, setSaved] = useState<LowBalance | undefined>(undefined);
  const { busy, error, run } = useAction();
  useEffect(() => setSaved(undefined), [threshold, webhookUrl]);
  const fields = { threshold_rub: t('topup.lowBalance.threshold'), webhook_url: t('topup.lowBalance.webhook') };
  const invalid = fieldOf(error, fields);
  const fallback = props.settings.default_threshold_rub;
  return (
    <form
      class="stacked"
      onSubmit={(event) => {
        event.preventDefault();
        void run(async () => {
          const body = { threshold_rub: threshold.trim() === '' ? null : typedAmount(threshold), webhook_url: webhookUrl.trim() === '' ? null : webhookUrl.trim() };
          setSaved(await api<LowBalance>('/cabinet/api/low-balance', { method: 'PUT', body }));
        });
      }}
    >
      <p>{t('topup.lowBalance.intro')}</p>
      <label>
        {t('topup.lowBalance.threshold')}
        <input
          type="text"
          name="threshold_rub"
          inputMode="decimal"
          autocomplete="off"
          value={threshold}
          aria-invalid={invalid === 'threshold_rub' ? true : undefined}
          aria-describedby={['low-balance-threshold-help', invalid === 'threshold_rub' ? 'low-balance-error' : undefined].filter(Boolean).join(' ')}
          onInput={(event) => setThreshold(event.currentTarget.value)}
        />
      </label>
      <p id="low-balance-threshold-help" class="muted small">
        {fallback === null ? t('topup.lowBalance.noDefault') : t('topup.lowBalance.default', { amount: formatRub(fallback, language) })}
      </p>
      <label>
        {t('topup.lowBalance.webhook')}
        <input
          type="url"
          name="webhook_url"
          autocomplete="off"
          maxLength={2000}
          value={webhookUrl}
          aria-invalid={invalid === 'webhook_url' ? true : undefined}
          aria-describedby={['low-balance-webhook-help', invalid === 'webhook_url' ? 'low-balance-error' : undefined].filter(Boolean).join(' ')}
          onInput={(event) => setWebhookUrl(event.currentTarget.value)}
        />
      </label>
      <p id="low-balance-webhook-help" class="muted small">
        {t('topup.lowBalance.webhookHelp')}
      </p>
      <ErrorMessage error={error} fields={fields} id="low-balance-error" />
      {saved && (
        <p role="status" class="notice" data-testid="low-balance-saved">
          {t('topup.lowBalance.saved')}
        </p>
      )}
      <div>
        <button type="submit" disabled={busy}>
          {t('topup.lowBalance.save')}
        </button>
      </div>
    </form>
  );
}
