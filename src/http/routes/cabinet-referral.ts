// GET /cabinet/api/referral: the account's referral link and income (docs/payments.md,
// "Referrals"). Any member may read it; the code is made on the first read.
import type { ReferralAnswer } from '../../cabinet-api/answers.js';
import { formatRub } from '../../util/money.js';
import { formatPercent } from '../../referrals/referral-hooks.js';
import { referralLink, referralSummary } from '../../referrals/referral-summary.js';
import type { Handler } from '../state.js';

export const cabinetReferral: Handler = async (ctx, services) => {
  const { referral } = services.config;
  const summary = await referralSummary(services.db, ctx.state.apiKey!.accountId, { enabled: referral !== undefined });
  const answer: ReferralAnswer = {
    enabled: referral !== undefined,
    code: summary.code,
    link: summary.code === null ? null : referralLink(services.cabinet.settings.publicUrl, summary.code),
    percent: referral === undefined ? null : formatPercent(referral.basisPoints),
    months: referral === undefined ? null : referral.months,
    referred_accounts: summary.referredAccounts,
    income_rub: formatRub(summary.incomeUnits),
  };
  ctx.set('cache-control', 'no-store');
  ctx.body = answer;
};
