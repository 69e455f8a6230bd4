// GET /v1/history: the key's own account ledger, newest first.
import { z } from 'zod';
import { readHistory } from '../../billing/history.js';
import type { Handler } from '../state.js';
import { validate } from '../../validation/zod-details.js';

const historyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(200).optional(),
});

export const listHistory: Handler = async (ctx, services) => {
  const query = validate(historyQuery, ctx.query, 'query');
  // A cursor it did not hand out is a 422 on `cursor` (src/util/invalid-cursor-error.ts).
  ctx.body = await readHistory(services.db, ctx.state.apiKey!.accountId, query);
};
