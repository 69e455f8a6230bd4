// The account's referral link on the top-up page (GET /cabinet/api/referral): the link to pass
// on, with a copy button; the terms (the share of referred accounts' paid top-ups and for how
// long); how many accounts signed up through it and what it has earned. Left out when the
// gateway pays no referral income (referral not configured, or a gateway without the route).
import { api, unlessMissing } from '../api.js';
import { CopyButton, ErrorMessage, Figure } from '../components/common.js';
import { useLoad } from '../data.js';
import { formatDecimal, formatNumber, formatRub } from '../format.js';
import { useI18n } from '../i18n/index.js';

interface Referral {
  readonly enabled: boolean;
  readonly code: string | null;
  readonly link: string | null;
  readonly percent: string | null;
  readonly months: number | null;
  readonly referred_accounts: number;
  readonly income_rub: string;
}

export function ReferralSection() {
  const { t, language } = useI18n();
  const referral = useLoad(() => unlessMissing(api<Referral>('/cabinet/api/referral')), []);
  if (referral.error !== undefined) return <ErrorMessage error={referral.error} />;
  const data = referral.data;
  if (!data || !data.enabled || !data.link) return null;
  return (
    <section aria-labelledby="referral-heading">
      <h2 id="referral-heading">{t('topup.referral.title')}</h2>
      <p>{t('topup.referral.terms', { percent: formatDecimal(data.percent ?? '0', language), months: data.months ?? 0 })}</p>
      <p class="secret-value">
        <code data-testid="referral-link">{data.link}</code> <CopyButton text={data.link} label={t('topup.referral.copy')} />
      </p>
      <dl class="figures">
        <Figure label={t('topup.referral.accounts')} value={formatNumber(data.referred_accounts, language)} />
        <Figure label={t('topup.referral.income')} value={formatRub(data.income_rub, language)} />
      </dl>
    </section>
  );
}
