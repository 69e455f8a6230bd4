// /admin/v1/payments: customers' payments with their refunds (the reads of `gateway payments
// ls/show`), and a refund to the card through the payment's provider (the service of `gateway
// payments refund`), audited with the actor. The money rules are the service's
// (src/payments/payment-refunds.ts): 409 refund_exceeds_available while the money is spent,
// unless allow_spent takes the balance to zero; 409 payment_not_refundable.
import * as schemas from '../../admin/payment-schemas.js';
import { limitedList } from '../../cli/list-output.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { findPaymentRecord, listPaymentRecords } from '../../payments/payment-records.js';
import { presentOperatorPayment, presentPaymentRefund } from '../../payments/present-payment.js';
import { validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { actorOf } from './admin-actor.js';

export const listPayments: Handler = async (ctx, { accounts, db }) => {
  const query = validate(schemas.paymentsQuery, ctx.query, 'query');
  const accountId = query.account === undefined ? undefined : (await accounts.find(query.account)).id;
  // One row beyond the limit, only to know whether there are more.
  const records = await listPaymentRecords(db, { status: query.status, accountId, before: query.before, limit: query.limit + 1 });
  const list = limitedList(records, query.limit);
  ctx.body = { ...list, data: list.data.map(presentOperatorPayment) };
};

export const showPayment: Handler = async (ctx, { db }) => {
  const record = await findPaymentRecord(db, ctx.params.id!);
  if (!record) throw new GatewayError('not_found', `no payment ${ctx.params.id!}`);
  ctx.body = presentOperatorPayment(record);
};

export const refundPayment: Handler = async (ctx, services) => {
  const body = validate(schemas.refundPaymentBody, ctx.request.body ?? {}, 'body');
  const record = await findPaymentRecord(services.db, ctx.params.id!);
  if (!record) throw new GatewayError('not_found', `no payment ${ctx.params.id!}`);
  const { payment } = record;
  if (!services.payments?.payments.providers.has(payment.provider)) {
    throw new GatewayError('payment_provider_unavailable', `payment ${payment.id} was made with ${payment.provider}, which is not configured in payments here: nothing was refunded`);
  }
  const refund = await services.payments.refunds.refund({
    paymentId: payment.id,
    amountUnits: body.amount_rub,
    allowSpent: body.allow_spent,
    actor: actorOf(ctx),
    reason: body.reason ?? null,
  });
  ctx.status = 201;
  ctx.body = presentPaymentRefund(refund, payment.currency);
};
