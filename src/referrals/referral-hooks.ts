// PLACEHOLDER for the referrals slice: a referrer's share of a paid top-up, and its reversal on refund.
import type { Knex } from 'knex';
import type { Ledger } from '../billing/ledger.js';
import type { ReferralConfig } from '../config/load.js';
import type { Logger } from '../observability/logger.js';
import type { PaymentHooks } from '../payments/payments.js';

export function referralHooks(_db: Knex, _ledger: Ledger, _config: ReferralConfig | undefined, _logger: Logger, _now: () => number): PaymentHooks {
  return {};
}
