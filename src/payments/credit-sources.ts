// The unique source of every credit that money coming in writes (ledger_transactions.source,
// migration 20261128300000): the same source twice is the same credit, refused by the index.
// One function per kind of source, so no two places spell one differently.

/** The top-up of a payment. */
export const paymentSource = (provider: string, providerPaymentId: string) => `payment:${provider}:${providerPaymentId}`;

/** The tier bonus (payments.bonus_tiers) of a payment. */
export const paymentBonusSource = (provider: string, providerPaymentId: string) => `payment-bonus:${provider}:${providerPaymentId}`;

/** The money a refund takes back, written before the provider is asked. */
export const paymentRefundSource = (refundId: string) => `payment-refund:${refundId}`;

/** The money of a refund the provider refused, given back. */
export const paymentRefundFailedSource = (refundId: string) => `payment-refund-failed:${refundId}`;

/** A referrer's share of a payment. */
export const referralSource = (provider: string, providerPaymentId: string) => `referral:${provider}:${providerPaymentId}`;

/** The referral share a refund takes back. */
export const referralReversalSource = (refundId: string) => `referral-reversal:${refundId}`;

/** A redemption code, once per account. */
export const codeSource = (codeId: string, accountId: string) => `code:${codeId}:${accountId}`;

/** The sign-up bonus of a user. */
export const signupBonusSource = (userId: string) => `signup-bonus:${userId}`;
