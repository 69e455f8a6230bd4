// The cabinet's overview (GET /cabinet/api/overview): the balance as the account row holds it,
// and what the account spent — sums the database takes over the ledger (charges less the
// refunds of them) and the usage records (requests that charged nothing), never money added
// up here. Days are UTC days (the gateway has no time zone setting; `gateway usage --by day`
// counts the same days): "today" is the current UTC day so far, "7 days" today and the six
// days before it, "30 days" today and the 29 before; by_day lists those 30 days, oldest
// first, a day without spending as "0.0000".
import type { Knex } from 'knex';
import { isPostgres } from '../db/dialect.js';
import type { Ledger } from '../billing/ledger.js';
import { formatRub, unitsFromSql } from '../util/money.js';
import { drainUsageOutbox } from '../billing/usage-outbox.js';
import type { Overview } from './answers.js';

export const dayMs = 86_400_000;

type Sum = string | number | bigint | null;

const rowsOf = <T>(db: Knex, result: unknown): T[] => (isPostgres(db) ? (result as { rows: T[] }).rows : (result as T[]));

/** What spending means in every figure: charges (negative amounts) and refunds of them, negated. */
const spendRows = `kind IN ('charge', 'refund') AND account_id = :accountId AND created_at >= :since AND created_at < :until`;

export async function readOverview(db: Knex, ledger: Ledger, accountId: string, now: number): Promise<Overview> {
  await drainUsageOutbox(db); // every charge's usage record, those SQLite settles left in the outbox too
  const todayStart = Math.floor(now / dayMs) * dayMs;
  const since = todayStart - 29 * dayMs;
  const until = todayStart + dayMs;
  const bindings = { accountId, since, until, today: todayStart, week: todayStart - 6 * dayMs };
  const [balance, totalsResult, modelsResult, daysResult] = await Promise.all([
    ledger.balance(accountId),
    db.raw(
      `SELECT SUM(CASE WHEN created_at >= :today THEN -amount_units ELSE 0 END) AS today,
              SUM(CASE WHEN created_at >= :week THEN -amount_units ELSE 0 END) AS week,
              SUM(-amount_units) AS month
       FROM ledger_transactions WHERE ${spendRows}`,
      bindings,
    ),
    // Requests: the charges, plus the usage records of requests that charged nothing (a refund is no request).
    db.raw(
      `SELECT model, SUM(units) AS units, SUM(requests) AS requests FROM (
         SELECT model, -amount_units AS units, CASE WHEN kind = 'charge' THEN 1 ELSE 0 END AS requests
         FROM ledger_transactions WHERE ${spendRows}
         UNION ALL
         SELECT model, 0 AS units, 1 AS requests
         FROM usage_records WHERE cost_units = 0 AND account_id = :accountId AND created_at >= :since AND created_at < :until
       ) spent GROUP BY model ORDER BY SUM(units) DESC, model`,
      bindings,
    ),
    db.raw(`SELECT created_at / ${dayMs} AS day, SUM(-amount_units) AS units FROM ledger_transactions WHERE ${spendRows} GROUP BY created_at / ${dayMs}`, bindings),
  ]);
  const totals = rowsOf<{ today: Sum; week: Sum; month: Sum }>(db, totalsResult)[0];
  const spentByDay = new Map(rowsOf<{ day: Sum; units: Sum }>(db, daysResult).map((row) => [Number(row.day), unitsFromSql(row.units)]));
  const byDay: Overview['by_day'] = [];
  for (let day = since; day < until; day += dayMs) {
    byDay.push({ day: new Date(day).toISOString().slice(0, 10), rub: formatRub(spentByDay.get(day / dayMs) ?? 0n) });
  }
  return {
    balance_rub: formatRub(balance.balanceUnits),
    held_rub: formatRub(balance.heldUnits),
    available_rub: formatRub(balance.availableUnits),
    spend: {
      today_rub: formatRub(unitsFromSql(totals?.today)),
      days_7_rub: formatRub(unitsFromSql(totals?.week)),
      days_30_rub: formatRub(unitsFromSql(totals?.month)),
    },
    by_model: rowsOf<{ model: string | null; units: Sum; requests: Sum }>(db, modelsResult).map((row) => ({
      model: row.model,
      rub: formatRub(unitsFromSql(row.units)),
      requests: Number(row.requests),
    })),
    by_day: byDay,
    since: new Date(since).toISOString(),
    until: new Date(until).toISOString(),
  };
}
