// GET /admin/v1/request-log: the request log, filtered and paged (src/admin/request-log.ts).
import { readRequestLog } from '../../admin/request-log.js';
import * as schemas from '../../admin/schemas.js';
import { parseReportTime } from '../../billing/usage-report.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';

const timeHint = 'Value error, use YYYY-MM-DD (UTC) or an ISO 8601 time with its zone, e.g. 2026-11-01T09:00:00Z';

export const listRequestLog: Handler = async (ctx, { accounts, db }) => {
  const query = validate(schemas.requestLogQuery, ctx.query, 'query');
  // The period as GET /admin/v1/usage reads it; either end may be left open.
  const since = query.since === undefined ? undefined : parseReportTime(query.since);
  if (query.since !== undefined && since === undefined) throw invalid(['query', 'since'], timeHint, query.since);
  const until = query.until === undefined ? undefined : parseReportTime(query.until);
  if (query.until !== undefined && until === undefined) throw invalid(['query', 'until'], timeHint, query.until);
  if (since !== undefined && until !== undefined && until <= since) throw invalid(['query', 'until'], `Value error, until must be after since (${new Date(since).toISOString()})`, query.until);
  // An account by id or name, as the CLI takes it; an unknown one is a 404 naming it.
  const accountId = query.account === undefined ? undefined : (await accounts.find(query.account)).id;
  ctx.body = await readRequestLog(db, {
    status: query.status,
    model: query.model,
    keyId: query.key,
    accountId,
    source: query.source,
    since,
    until,
    limit: query.limit,
    beforeId: query.cursor === undefined ? undefined : Number(query.cursor),
  });
};
