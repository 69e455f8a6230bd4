// GET /admin/v1/request-log: the request log, filtered and paged (src/admin/request-log.ts).
import { readRequestLog } from '../../admin/request-log.js';
import * as schemas from '../../admin/schemas.js';
import { validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';

export const listRequestLog: Handler = async (ctx, { accounts, db }) => {
  const query = validate(schemas.requestLogQuery, ctx.query, 'query');
  // An account by id or name, as the CLI takes it; an unknown one is a 404 naming it.
  const accountId = query.account === undefined ? undefined : (await accounts.find(query.account)).id;
  ctx.body = await readRequestLog(db, {
    status: query.status,
    model: query.model,
    keyId: query.key,
    accountId,
    limit: query.limit,
    beforeId: query.cursor === undefined ? undefined : Number(query.cursor),
  });
};
