// /admin/v1/accounts: list, create, show, disable, enable, top up and adjust — each through
// the service `gateway accounts …` and `gateway balance …` use, audited with the actor.
import { InvalidAccountNameError } from '../../accounts/accounts.js';
import * as schemas from '../../admin/schemas.js';
import { Corrections } from '../../billing/corrections.js';
import { presentAccount, presentCredit } from '../../cli/present.js';
import { wholeList } from '../../cli/list-output.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { actorOf } from './admin-actor.js';

export const listAccounts: Handler = async (ctx, { accounts }) => {
  ctx.body = wholeList((await accounts.list()).map((account) => presentAccount(account)));
};

export const createAccount: Handler = async (ctx, { accounts }) => {
  const body = validate(schemas.createAccountBody, ctx.request.body, 'body');
  try {
    const account = await accounts.create(body.name, { actor: actorOf(ctx) });
    ctx.status = 201;
    ctx.body = presentAccount(account);
  } catch (error) {
    if (error instanceof InvalidAccountNameError) throw invalid(['body', 'name'], error.message, body.name);
    throw error;
  }
};

/** By id (acc_…) or name, as the CLI takes it. */
export const showAccount: Handler = async (ctx, { accounts, apiKeys }) => {
  const account = await accounts.find(ctx.params.id!);
  const keys = await apiKeys.list(account.id);
  ctx.body = { ...presentAccount(account, { withSecret: true }), keys: keys.length, active_keys: keys.filter((key) => key.revokedAt === null).length };
};

const setDisabled =
  (disabled: boolean): Handler =>
  async (ctx, { accounts }) => {
    const body = validate(schemas.reasonBody, ctx.request.body ?? {}, 'body'); // no body: no reason
    const { account, changed } = await accounts.setDisabled(ctx.params.id!, disabled, { reason: body.reason ?? null, actor: actorOf(ctx) });
    ctx.body = { ...presentAccount(account), changed };
  };

export const disableAccount = setDisabled(true);
export const enableAccount = setDisabled(false);

export const topupAccount: Handler = async (ctx, { accounts, db, ledger, now }) => {
  const body = validate(schemas.topupBody, ctx.request.body, 'body');
  const account = await accounts.find(ctx.params.id!);
  const result = await new Corrections(db, ledger, now).topup({ accountId: account.id, amountUnits: body.amount_rub, kind: body.kind, note: body.reason ?? null, actor: actorOf(ctx) });
  ctx.body = presentCredit(result, body.kind, body.reason ?? null);
};

/** A negative adjustment that would take more than the available money: 409 adjustment_refused, nothing written. */
export const adjustAccount: Handler = async (ctx, { accounts, db, ledger, now }) => {
  const body = validate(schemas.adjustBody, ctx.request.body, 'body');
  const account = await accounts.find(ctx.params.id!);
  const result = await new Corrections(db, ledger, now).adjust({ accountId: account.id, amountUnits: body.amount_rub, reason: body.reason, actor: actorOf(ctx) });
  ctx.body = presentCredit(result, 'adjustment', body.reason);
};
