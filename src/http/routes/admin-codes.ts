// /admin/v1/codes: batches of redemption codes (docs/payments.md, "Redemption codes") — the
// services of `gateway codes create/ls/disable`, audited with the actor. The codes are in the
// answer that creates their batch only; lists show each code's last four characters.
import * as schemas from '../../admin/schemas.js';
import { KeyPolicyFormatError, parseExpires } from '../../auth/key-policy.js';
import { wholeList } from '../../cli/list-output.js';
import { presentBatch, presentBatchDetail, presentCode, presentCreatedBatch } from '../../cli/present-codes.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { actorOf } from './admin-actor.js';

export const listCodeBatches: Handler = async (ctx, { codes }) => {
  ctx.body = wholeList((await codes.listBatches()).map(presentBatch));
};

export const showCodeBatch: Handler = async (ctx, { codes }) => {
  ctx.body = presentBatchDetail(await codes.showBatch(ctx.params.batchId!));
};

export const createCodes: Handler = async (ctx, { codes, now }) => {
  const body = validate(schemas.createCodesBody, ctx.request.body ?? {}, 'body');
  const at = now();
  let expiresAt: number | null;
  try {
    expiresAt = parseExpires(body.expires ?? 'never', at);
  } catch (error) {
    if (!(error instanceof KeyPolicyFormatError)) throw error;
    throw invalid(['body', 'expires'], error.reason, body.expires);
  }
  const made = await codes.create({ amountUnits: body.amount_rub, count: body.count, usesPerCode: body.uses ?? 1, expiresAt, note: body.note ?? null, actor: actorOf(ctx), at });
  ctx.status = 201;
  ctx.set('cache-control', 'no-store');
  ctx.body = presentCreatedBatch(made);
};

/** Disabling what is disabled changes nothing and writes no audit row. */
export const disableCodes: Handler = async (ctx, { codes }) => {
  const disabled = await codes.disable(ctx.params.id!, actorOf(ctx));
  ctx.body = disabled.kind === 'batch' ? presentBatch(disabled.batch) : presentCode(disabled.code);
};
