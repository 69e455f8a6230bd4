// GET /cabinet/api/history: the account's ledger filtered by kind, model, key and time, paged
// by the /v1/history cursor; `format=csv` answers every matching row as a streamed CSV file.
import { Readable } from 'node:stream';
import { z } from 'zod';
import { historyCsv, parseTimeBound, readCabinetHistory, transactionKinds, type HistoryFilter } from '../../cabinet-api/history.js';
import type { TransactionKind } from '../../billing/ledger.js';
import { invalid, validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';

const historyQuery = z.object({
  kind: z.enum(transactionKinds as [TransactionKind, ...TransactionKind[]]).optional(),
  model: z.string().min(1).max(200).optional(),
  key: z.string().min(1).max(40).optional(),
  since: z.string().min(1).max(40).optional(),
  until: z.string().min(1).max(40).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(200).optional(),
  format: z.enum(['json', 'csv']).default('json'),
});

const timeHint = 'Input should be a date (YYYY-MM-DD, UTC), an ISO 8601 time with its zone, or Unix seconds';

function timeBound(name: 'since' | 'until', text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseTimeBound(text);
  if (ms === undefined) throw invalid(['query', name], timeHint, text);
  return ms;
}

export const cabinetHistory: Handler = async (ctx, services) => {
  const query = validate(historyQuery, ctx.query, 'query');
  const filter: HistoryFilter = { kind: query.kind, model: query.model, key: query.key, since: timeBound('since', query.since), until: timeBound('until', query.until) };
  if (filter.since !== undefined && filter.until !== undefined && filter.until <= filter.since) {
    throw invalid(['query', 'until'], 'Input should be after since', query.until);
  }
  const accountId = ctx.state.apiKey!.accountId;
  if (query.format === 'csv') {
    const lines = await historyCsv(services.db, accountId, filter);
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('content-disposition', `attachment; filename="history-${new Date(services.now()).toISOString().slice(0, 10)}.csv"`);
    ctx.set('cache-control', 'no-store');
    const body = Readable.from(lines, { objectMode: false });
    // Past the headers nothing can be answered any more: the file is cut, and logged here.
    body.once('error', (error) => services.logger.error({ err: error, request_id: ctx.state.requestId }, 'history export cut off: reading the ledger failed'));
    ctx.body = body;
    return;
  }
  // A cursor it did not hand out is a 422 on `cursor` (src/util/invalid-cursor-error.ts).
  ctx.body = await readCabinetHistory(services.db, accountId, filter, { limit: query.limit, cursor: query.cursor });
};
