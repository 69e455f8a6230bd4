// The admin API's payment routes as zod schemas (/admin/v1/payments, docs/admin-api.md): the
// customers' payments with their refunds, and a refund to the card. Beside schemas.ts, whose
// shared pieces they use; the OpenAPI document is generated from both.
import { z } from 'zod';
import { paymentStatuses } from '../payments/present-payment.js';
import { isoTime, limit, rubInput, rubText } from './schemas.js';

const nullableIso = isoTime.nullable();
/** An amount in a provider's currency: a decimal string in its unit ("500.00" rub, "12.34" usd, "500" jpy). */
const money = z.strictObject({ amount: z.string().describe("a decimal string in the currency's unit"), currency: z.string().describe('lowercase ISO 4217') });

export const paymentsQuery = z.object({
  status: z.enum(paymentStatuses).optional().describe('only payments in this status'),
  account: z.string().max(200).optional().describe('an account id or name'),
  limit: limit(500, 50),
  before: z.string().regex(/^pay_[2-7a-z]{10,40}$/, 'expected a payment id (pay_…): the last id of the previous page').optional().describe('only payments older than this one: the last id of the previous page'),
});

export const paymentRefund = z.strictObject({
  id: z.string().describe('pref_…'),
  payment_id: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']).describe('pending: the provider has not finished it (the sweeper asks again); failed: the provider refused and the money went back to the balance'),
  amount: money.describe('what goes back to the card, in the payment’s currency'),
  share_rub: rubText.describe("the share of the payment's credit refunded"),
  debit_rub: rubText.describe('what the ledger took back: the share, or less when allow_spent let the balance go to zero'),
  created_at: isoTime,
});

export const payment = z.strictObject({
  id: z.string().describe('pay_…'),
  object: z.literal('payment'),
  provider: z.string().describe('yookassa or stripe'),
  provider_payment_id: z.string().nullable().describe("the provider's id; null until the provider answered"),
  status: z.enum(paymentStatuses),
  amount_rub: rubText.describe('what the customer asked to add'),
  charged: money.describe('what the provider charges'),
  rate: z.string().nullable().describe('RUB per unit of the currency, when it is not rub'),
  credited_rub: rubText.nullable().describe('what the topup row added; null until paid'),
  refunded_rub: rubText.describe('the share of the credit refunded so far (refunds pending or succeeded)'),
  failure: z.string().nullable().describe('why the provider cancelled it'),
  created_at: isoTime,
  paid_at: nullableIso,
  account_id: z.string(),
  account_name: z.string(),
  email: z.string().nullable().describe("the customer's email the receipt went to"),
  refunds: z.array(paymentRefund).describe('oldest first'),
});

export const paymentList = z.strictObject({ object: z.literal('list'), data: z.array(payment), has_more: z.boolean() });

export const refundPaymentBody = z.object({
  amount_rub: rubInput({ allowNegative: false }).optional().describe('RUB of the payment’s credit to give back (default: all not yet refunded); digits with up to 4 decimals'),
  allow_spent: z.boolean().default(false).describe('when part of the money is already spent: refund the card anyway and take the balance to zero, never below (default false: refused with 409 refund_exceeds_available)'),
  reason: z.string().max(500).nullish().describe('why (the ledger row and the audit log)'),
});
