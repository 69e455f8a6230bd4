// GET /admin/v1/usage (the `gateway usage` report, the same numbers: usageSummary) and
// GET /admin/v1/audit (the audit log, as `gateway audit ls`, paged by id).
import * as schemas from '../../admin/schemas.js';
import { presentAudit, readAudit } from '../../audit/audit-log.js';
import { parseReportTime, usageSummary } from '../../billing/usage-report.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';

const timeHint = 'Value error, use YYYY-MM-DD (UTC) or an ISO 8601 time with its zone, e.g. 2026-11-01T09:00:00Z';

export const usageReportRoute: Handler = async (ctx, { accounts, db, now }) => {
  const query = validate(schemas.usageQuery, ctx.query, 'query');
  const since = parseReportTime(query.since);
  if (since === undefined) throw invalid(['query', 'since'], timeHint, query.since);
  const until = query.until === undefined ? now() : parseReportTime(query.until);
  if (until === undefined) throw invalid(['query', 'until'], timeHint, query.until);
  if (until <= since) throw invalid(['query', 'until'], `Value error, until must be after since (${new Date(since).toISOString()})`, query.until ?? new Date(until).toISOString());
  const accountId = query.account === undefined ? undefined : (await accounts.find(query.account)).id;
  ctx.body = await usageSummary(db, { since, until, by: query.by, accountId });
};

export const listAudit: Handler = async (ctx, { accounts, db }) => {
  const query = validate(schemas.auditQuery, ctx.query, 'query');
  const accountId = query.account === undefined ? undefined : (await accounts.find(query.account)).id;
  const rows = await readAudit(db, { accountId, action: query.action, limit: query.limit, beforeId: query.cursor === undefined ? undefined : Number(query.cursor) });
  const data = rows.slice(0, query.limit).map(presentAudit);
  const nextCursor = rows.length > query.limit ? String(data.at(-1)!.id) : null;
  ctx.body = { object: 'list', data, has_more: nextCursor !== null, next_cursor: nextCursor };
};
