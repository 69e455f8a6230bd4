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
import { bin, createPostgresDatabase, option, prepareAccount, root, sequential, startGateway, stop, writeBenchConfig } from './lib.mjs';
import { connect, seedHistory } from './seed-history.mjs';

const args = process.argv.slice(2);
const rows = Number(option(args, 'rows', '5000000'));
const roundCount = Number(option(args, 'rounds', '6'));
const outDir = path.resolve(option(args, 'out', path.join(root, 'bench', 'results')));
const requested = option(args, 'backend', 'both');
const backends = requested === 'both' ? ['sqlite', 'postgres'] : [requested];
const log = (message) => process.stderr.write(`${message}\n`);
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timeGets(url, key, count) {
  const dispatcher = new Agent({ connections: 1 });
  const samples = [];
  for (let i = 0; i < count + 20; i++) {
    const started = performance.now();
    const response = await request(url, { dispatcher, headers: { authorization: `Bearer ${key}` } });
    await response.body.text();
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode}`);
    if (i >= 20) samples.push(performance.now() - started);
  }
  await dispatcher.close();
  return median(samples);
}

function timeCli(argv, env, count = 5) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    execFileSync(bin, argv, { env: { ...process.env, ...env }, stdio: 'ignore' });
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/** The plans of the queries every charged request or history page runs. */
async function plans(db, accountId, keyHash, cursorId) {
  const sqlite = db.client.config.client === 'sqlite3';
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

/** One round of every figure against one running gateway and its database. */
async function measureRound(side, simulatorUrl) {
  const { gateway, key, db, accountId, cursor } = side;
  const direct = (await sequential({ name: 'direct', base: simulatorUrl, key: 'none', model: 'chat' }, { count: 300, warmup: 50, stream: false })).p50;
  const chat = (await sequential({ name: 'gateway', base: gateway.url, key, model: 'bench/chat' }, { count: 300, warmup: 50, stream: false })).p50;
  const historyFirst = await timeGets(`${gateway.url}/v1/history?limit=50`, key, 300);
  const historyDeep = await timeGets(`${gateway.url}/v1/history?limit=50&cursor=${cursor}`, key, 300);
  const samples = [];
  for (let i = 0; i < 300; i++) {
    const started = performance.now();
    await db('accounts').where({ id: accountId }).first('balance_units', 'held_units');
    samples.push(performance.now() - started);
  }
  return { chatAdded: chat - direct, historyFirst, historyDeep, balanceQuery: median(samples), balanceCli: timeCli(['balance', 'show', '--account', 'bench', '--json'], side.env, 3) };
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

const simulator = await startGateway(['simulate', '--host', '127.0.0.1', '--port', '0'], {}, 1);
const direct = await sequential({ name: 'direct', base: simulator.url, key: 'none', model: 'chat' }, { count: 500, warmup: 100, stream: false });
const results = [];
try {
  for (const backend of backends) {
    log(`${backend}:`);
    // Two databases, one left empty and one seeded, each behind its own gateway; the rounds
    // alternate between them, so a machine that speeds up or slows down during the run (this
    // VM swings 2x within an hour) moves both sides alike instead of looking like history.
    const empty = await prepareSide(backend, simulator.url);
    const seeded = await prepareSide(backend, simulator.url);
    try {
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
      // Alternating rounds, the side measured first changing every round (whichever goes second
      // in a round met a machine some seconds further into its drift); each figure keeps its
      // lowest round (a round can be disturbed; the question is whether history slows the path,
      // not the machine).
      const rounds = sides.map(() => []);
      for (let round = 0; round < roundCount; round++) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const index of order) rounds[index].push(await measureRound(sides[index], simulator.url));
      }
      for (const [index, side] of sides.entries()) {
        const lowest = (name) => Math.min(...rounds[index].map((round) => round[name]));
        const { createHash } = await import('node:crypto');
        results.push({
          backend,
          label: side.label,
          rows: Number((await side.db('ledger_transactions').count({ n: '*' }).first()).n),
          chatAdded: lowest('chatAdded'),
          historyFirst: lowest('historyFirst'),
          historyDeep: lowest('historyDeep'),
          balanceQuery: lowest('balanceQuery'),
          balanceCli: lowest('balanceCli'),
          rounds: rounds[index],
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
const lines = [
  `# History scale ${new Date().toISOString().slice(0, 10)} (${hostname()})`,
  '',
  `Reproduce: \`npm run build && node bench/scale.mjs --rows ${rows}\` (the seeding alone: \`npm run bench:seed -- --database URL --account NAME --rows N\`). An empty and a seeded database, each behind its own gateway, measured in ${roundCount} alternating rounds (the side measured first alternating too); each figure is the lowest round's median; chat added = through the gateway minus direct to the simulator in the same round (${ms(direct.p50)} ms direct at the start).`,
  '',
  '| database | ledger rows | chat added p50 (ms) | GET /v1/history first page (ms) | deep cursor (ms) | balance query (ms) | `gateway balance show` (ms) |',
  '|---|---|---|---|---|---|---|',
  ...results.map((r) => `| ${r.backend} | ${r.rows.toLocaleString('en-US')} | ${ms(r.chatAdded)} | ${ms(r.historyFirst)} | ${ms(r.historyDeep)} | ${ms(r.balanceQuery)} | ${Math.round(r.balanceCli)} |`),
  '',
  '| database | query | plan | full scan |',
  '|---|---|---|---|',
  ...results.filter((r) => r.label !== 'empty').flatMap((r) => Object.entries(r.plans).map(([name, plan]) => `| ${r.backend} | ${name} | \`${plan.plan.replace(/\|/g, '/')}\` | ${plan.fullScan ? '**yes**' : 'no'} |`)),
];
const markdown = lines.join('\n');
process.stdout.write(`${markdown}\n`);
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, 'scale-latest.md'), `${markdown}\n`);
writeFileSync(path.join(outDir, 'scale-latest.json'), JSON.stringify({ direct, results }, null, 2));
