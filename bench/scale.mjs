#!/usr/bin/env node
// Does history slow the hot path? On an empty database, then after seeding N ledger
// transactions and usage records (bench/seed-history.mjs), measures: a chat request's added
// latency at one connection, GET /v1/history (first page and a deep cursor), the balance
// query and `gateway balance show`; and prints the query plans of the hot queries, flagging
// any full scan. SQLite and PostgreSQL.
//
//   node bench/scale.mjs [--rows 5000000] [--rounds 6] [--backend sqlite|postgres|both] [--out DIR]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { bin, chatBody, chatHeaders, createPostgresDatabase, option, prepareAccount, root, startGateway, stop, writeBenchConfig } from './lib.mjs';
import { connect, seedHistory } from './seed-history.mjs';
import { isPostgres } from '../dist/src/db/dialect.js';

const args = process.argv.slice(2);
const rows = Number(option(args, 'rows', '5000000'));
const roundCount = Number(option(args, 'rounds', '6'));
/** The history of the near-empty side: enough for a deep cursor, two pages down. */
const baselineRows = 1_000;
const outDir = path.resolve(option(args, 'out', path.join(root, 'bench', 'results')));
const requested = option(args, 'backend', 'both');
const backends = requested === 'both' ? ['sqlite', 'postgres'] : [requested];
const log = (message) => process.stderr.write(`${message}\n`);
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Runs `once(target)` for every target in turn, `count` times after `warmup`, the order reversed
 * every other turn, and returns each target's samples (ms). Interleaved request by request, so a
 * machine that speeds up or slows down (this VM swings 2-3x within minutes) moves every target
 * alike: the sides are compared at the same moments.
 */
async function interleaved(targets, { count, warmup }, once) {
  const samples = targets.map(() => []);
  const forward = targets.map((_target, index) => index);
  const backward = forward.slice().reverse();
  for (let turn = 0; turn < warmup + count; turn++) {
    for (const index of turn % 2 === 0 ? forward : backward) {
      const started = performance.now();
      await once(targets[index]);
      if (turn >= warmup) samples[index].push(performance.now() - started);
    }
  }
  return samples;
}

async function get(url, key, dispatcher) {
  const response = await request(url, { dispatcher, headers: { authorization: `Bearer ${key}` } });
  await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode}`);
}

async function chat(target) {
  const response = await request(`${target.base}/v1/chat/completions`, { method: 'POST', dispatcher: target.dispatcher, headers: chatHeaders(target), body: chatBody(target.model, false) });
  await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${target.base}: chat ${response.statusCode}`);
}

/** The plans of the queries every charged request or history page runs. */
async function plans(db, accountId, keyHash, cursorId) {
  const sqlite = !isPostgres(db);
  const queries = {
    'key lookup': [`SELECT * FROM api_keys WHERE hash = ?`, [keyHash]],
    'hold (conditional update)': [`UPDATE accounts SET held_units = held_units + 1 WHERE id = ? AND balance_units - held_units >= 1`, [accountId]],
    'balance': [`SELECT balance_units, held_units FROM accounts WHERE id = ?`, [accountId]],
    'history first page': [`SELECT * FROM ledger_transactions WHERE account_id = ? ORDER BY id DESC LIMIT 51`, [accountId]],
    'history deep page': [`SELECT * FROM ledger_transactions WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT 51`, [accountId, cursorId]],
    'expired holds (sweeper)': [`SELECT id FROM holds WHERE status = 'active' AND expires_at < ? ORDER BY expires_at LIMIT 500`, [Date.now()]],
    'due jobs (runner)': [`SELECT id FROM jobs WHERE status IN ('queued', 'in_progress') AND next_run_at <= ? ORDER BY next_run_at LIMIT 16`, [Date.now()]],
  };
  const out = {};
  for (const [name, [sql, bindings]] of Object.entries(queries)) {
    const result = await db.raw(`${sqlite ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'} ${sql}`, bindings);
    const lines = sqlite ? result.map((row) => row.detail) : result.rows.map((row) => row['QUERY PLAN']);
    const fullScan = lines.some((line) => (sqlite ? /^SCAN (?!.*USING)/.test(line) : /Seq Scan/.test(line)));
    out[name] = { plan: lines.join(' | '), fullScan };
  }
  return out;
}

/**
 * One round of every figure, the empty and the seeded side interleaved request by request (the
 * chat requests with a direct one to the simulator in the same turn). The samples of each
 * figure per side.
 */
async function measureRound(sides, simulatorUrl) {
  const plan = { count: 300, warmup: 30 };
  const connection = () => new Agent({ connections: 1, keepAliveTimeout: 60_000 });
  const direct = { base: simulatorUrl, key: 'none', model: 'chat', dispatcher: connection() };
  const gateways = sides.map((side) => ({ base: side.gateway.url, key: side.key, model: 'bench/chat', dispatcher: connection() }));
  try {
    const [directSamples, ...chatSamples] = await interleaved([direct, ...gateways], plan, chat);
    const historyFirst = await interleaved(gateways, plan, (target) => get(`${target.base}/v1/history?limit=50`, target.key, target.dispatcher));
    const historyDeep = await interleaved(
      gateways.map((target, index) => ({ ...target, cursor: sides[index].cursor })),
      plan,
      (target) => get(`${target.base}/v1/history?limit=50&cursor=${target.cursor}`, target.key, target.dispatcher),
    );
    const balanceQuery = await interleaved(sides, plan, (side) => side.db('accounts').where({ id: side.accountId }).first('balance_units', 'held_units'));
    const balanceCli = await interleaved(sides, { count: 3, warmup: 0 }, async (side) => execFileSync(bin, ['balance', 'show', '--account', 'bench', '--json'], { env: { ...process.env, ...side.env }, stdio: 'ignore' }));
    return sides.map((_side, index) => ({ direct: directSamples, chat: chatSamples[index], historyFirst: historyFirst[index], historyDeep: historyDeep[index], balanceQuery: balanceQuery[index], balanceCli: balanceCli[index] }));
  } finally {
    await Promise.all([direct, ...gateways].map((target) => target.dispatcher.close()));
  }
}

/** A database with the bench account: its env, key, knex handle and how to drop it. */
async function prepareSide(backend, simulatorUrl) {
  const { dir, configPath } = writeBenchConfig(simulatorUrl);
  const postgres = backend === 'postgres' ? await createPostgresDatabase('gw_scale') : undefined;
  const databaseUrl = postgres?.url ?? `sqlite:${path.join(dir, 'gateway.db')}`;
  const env = { GATEWAY_CONFIG: configPath, GATEWAY_DATA_DIR: dir, GATEWAY_DATABASE_URL: databaseUrl };
  const key = prepareAccount(env);
  const db = connect(databaseUrl);
  const accountId = (await db('accounts').where({ name: 'bench' }).first('id')).id;
  return { env, key, db, accountId, drop: postgres?.drop };
}

const figures = ['chatAdded', 'historyFirst', 'historyDeep', 'balanceQuery', 'balanceCli'];

/** A side's figures from its pooled samples: medians; chat added = through the gateway minus direct, both sampled in the same turns. */
function summarize(samples) {
  return {
    chatAdded: median(samples.chat) - median(samples.direct),
    historyFirst: median(samples.historyFirst),
    historyDeep: median(samples.historyDeep),
    balanceQuery: median(samples.balanceQuery),
    balanceCli: median(samples.balanceCli),
  };
}

const simulator = await startGateway(['simulate', '--host', '127.0.0.1', '--port', '0'], {}, 1);
const results = [];
try {
  for (const backend of backends) {
    log(`${backend}:`);
    // Two databases, one left empty and one seeded, each behind its own gateway (both on the
    // same core; at one connection only one works at a time), measured at the same moments.
    const empty = await prepareSide(backend, simulator.url);
    const seeded = await prepareSide(backend, simulator.url);
    try {
      // The "empty" side holds a short history of the same rows, so that its deep cursor
      // returns a full page too (on a truly empty database it would return nothing, faster).
      await seedHistory(empty.db, empty.accountId, baselineRows, () => undefined);
      log(`  seeding ${rows.toLocaleString('en-US')} rows…`);
      const started = Date.now();
      await seedHistory(seeded.db, seeded.accountId, rows);
      log(`  seeded in ${((Date.now() - started) / 1000).toFixed(0)} s; measuring…`);
      empty.label = 'empty';
      seeded.label = `${rows.toLocaleString('en-US')} rows`;
      const sides = [empty, seeded];
      for (const side of sides) {
        const top = await side.db('ledger_transactions').where({ account_id: side.accountId }).max({ id: 'id' }).first();
        side.cursorId = Math.max(1, Math.floor(Number(top.id) / 2));
        side.cursor = Buffer.from(`txn:${side.cursorId}`).toString('base64url');
        side.gateway = await startGateway(['serve', '--host', '127.0.0.1', '--port', '0'], side.env, 0);
      }
      await sleep(300);
      // Every figure's samples pooled over the rounds; each round's medians kept to show the spread.
      const pooled = sides.map(() => Object.fromEntries(['direct', 'chat', ...figures.slice(1)].map((name) => [name, []])));
      const perRound = sides.map(() => []);
      for (let round = 0; round < roundCount; round++) {
        const measured = await measureRound(sides, simulator.url);
        measured.forEach((samples, index) => {
          for (const [name, values] of Object.entries(samples)) pooled[index][name].push(...values);
          perRound[index].push(summarize(samples));
        });
        log(`  round ${round + 1}/${roundCount}: chat added ${perRound.map((r) => r.at(-1).chatAdded.toFixed(2)).join(' vs ')} ms`);
      }
      const { createHash } = await import('node:crypto');
      for (const [index, side] of sides.entries()) {
        results.push({
          backend,
          label: side.label,
          rows: Number((await side.db('ledger_transactions').count({ n: '*' }).first()).n),
          ...summarize(pooled[index]),
          rounds: perRound[index],
          plans: await plans(side.db, side.accountId, createHash('sha256').update(side.key).digest('hex'), side.cursorId),
        });
      }
    } finally {
      for (const side of [empty, seeded]) {
        if (side.gateway) await stop(side.gateway);
        await side.db.destroy();
        await side.drop?.();
      }
    }
  }
} finally {
  await stop(simulator);
}

const ms = (value) => value.toFixed(2);
const change = (seededValue, emptyValue) => {
  const percent = Math.round((100 * (seededValue - emptyValue)) / emptyValue);
  return percent > 0 ? `+${percent}%` : percent < 0 ? `−${-percent}%` : '0%';
};
const rowsOf = (backend) => [results.find((r) => r.backend === backend && r.label === 'empty'), results.find((r) => r.backend === backend && r.label !== 'empty')];
const lines = [
  `# History scale ${new Date().toISOString().slice(0, 10)} (${hostname()})`,
  '',
  `Reproduce: \`npm run build && node bench/scale.mjs --rows ${rows}\` (the seeding alone: \`npm run bench:seed -- --database URL --account NAME --rows N\`). A near-empty database (${baselineRows.toLocaleString('en-US')} seeded rows, so that a deep cursor exists) and one seeded with ${rows.toLocaleString('en-US')}, each behind its own gateway, measured at the same moments: requests alternate between the two (and, for chat, a direct request to the simulator) one by one, the order reversed every other turn, ${roundCount} rounds of 300 per figure (3 CLI runs per side and round). Each figure is the median of all its samples; chat added = the gateway's median minus the direct median of the same turns.`,
  '',
  '| database | ledger rows | chat added p50 (ms) | GET /v1/history first page (ms) | deep cursor (ms) | balance query (ms) | `gateway balance show` (ms) |',
  '|---|---|---|---|---|---|---|',
  ...backends.flatMap((backend) => {
    const [emptyRow, seededRow] = rowsOf(backend);
    return [
      ...[emptyRow, seededRow].map((r) => `| ${r.backend} | ${r.rows.toLocaleString('en-US')} | ${ms(r.chatAdded)} | ${ms(r.historyFirst)} | ${ms(r.historyDeep)} | ${ms(r.balanceQuery)} | ${Math.round(r.balanceCli)} |`),
      `| ${backend} | change | ${figures.map((name) => change(seededRow[name], emptyRow[name])).join(' | ')} |`,
    ];
  }),
  '',
  'Per round (empty → seeded), to show the spread:',
  '',
  ...backends.flatMap((backend) => {
    const [emptyRow, seededRow] = rowsOf(backend);
    return figures.map((name) => `- ${backend} ${name}: ${emptyRow.rounds.map((round, index) => `${ms(round[name])} → ${ms(seededRow.rounds[index][name])}`).join('; ')}`);
  }),
  '',
  '| database | query | plan | full scan |',
  '|---|---|---|---|',
  ...results.filter((r) => r.label !== 'empty').flatMap((r) => Object.entries(r.plans).map(([name, plan]) => `| ${r.backend} | ${name} | \`${plan.plan.replace(/\|/g, '/')}\` | ${plan.fullScan ? '**yes**' : 'no'} |`)),
];
const markdown = lines.join('\n');
process.stdout.write(`${markdown}\n`);
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, 'scale-latest.md'), `${markdown}\n`);
writeFileSync(path.join(outDir, 'scale-latest.json'), JSON.stringify({ results }, null, 2));
