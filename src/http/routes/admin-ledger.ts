// /admin/v1/accounts/:id/transactions and …/refund: an account's ledger (the rows of `gateway
// balance history`, with each charge's refund) and the refund of one charge, whole and once,
// through the service `gateway balance refund` uses, audited with the actor. The console's
// ledger refunds a row by its transaction id; a script may name the request or job instead.
import { readAccountLedger } from '../../admin/account-ledger.js';
import * as schemas from '../../admin/schemas.js';
import { AmbiguousChargeError, Corrections } from '../../billing/corrections.js';
import { presentRefund } from '../../cli/present.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { actorOf } from './admin-actor.js';

export const listTransactions: Handler = async (ctx, { accounts, db }) => {
  const query = validate(schemas.transactionsQuery, ctx.query, 'query');
  const account = await accounts.find(ctx.params.id!);
  ctx.body = await readAccountLedger(db, account.id, query);
};

/**
 * 404 not_found: no such charge in this account (another account's charge too); 409
 * already_refunded the second time, also when two refunds of one charge race (the ledger's
 * unique index lets one through); 422 on request_id when that request has several charges.
 */
export const refundCharge: Handler = async (ctx, { accounts, db, ledger, now }) => {
  const body = validate(schemas.refundBody, ctx.request.body ?? {}, 'body');
  if ((body.transaction_id === undefined) === (body.request_id === undefined)) {
    throw invalid(['body', 'transaction_id'], 'Value error, give exactly one of transaction_id or request_id', body.transaction_id);
  }
  const account = await accounts.find(ctx.params.id!);
  const reason = body.reason ?? null;
  const charge = body.transaction_id !== undefined ? { transactionId: body.transaction_id } : { reference: body.request_id! };
  try {
    const result = await new Corrections(db, ledger, now).refund({ ...charge, accountId: account.id, reason, actor: actorOf(ctx) });
    ctx.body = presentRefund(result, reason);
  } catch (error) {
    if (error instanceof AmbiguousChargeError) throw invalid(['body', 'request_id'], `Value error, ${error.message}`, body.request_id);
    throw error;
  }
};
