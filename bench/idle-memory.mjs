#!/usr/bin/env node
// The resident memory of a `gateway serve` that has served nothing yet, with the configuration
// a fresh install writes (config/gateway.example.yaml, as install.sh copies it) or the one
// given, on SQLite: VmRSS, and its anonymous and file-backed parts (the node binary's pages are
// most of the latter), every `--every` seconds up to `--seconds` after start. docs/performance.md
// ("Idle memory") has the figures and what makes them.
//
//   node bench/idle-memory.mjs [--config PATH] [--seconds 40] [--every 5] [--build DIR]
//
// `--build DIR` measures another built checkout's bin/gateway (compare two builds the same
// minute: their memory at rest does not depend on the machine's load, but run each twice).
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execFileSync, spawn } from 'node:child_process';
import { option, root } from './lib.mjs';

const args = process.argv.slice(2);
const build = path.resolve(option(args, 'build', root));
const bin = path.join(build, 'bin', 'gateway');
const seconds = Number(option(args, 'seconds', '40'));
const every = Number(option(args, 'every', '5'));
const dir = mkdtempSync(path.join(tmpdir(), 'gw-idle-'));
const configPath = path.join(dir, 'gateway.yaml');
copyFileSync(path.resolve(option(args, 'config', path.join(build, 'config', 'gateway.example.yaml'))), configPath);
const env = { ...process.env, GATEWAY_CONFIG: configPath, GATEWAY_DATA_DIR: dir };
execFileSync(bin, ['migrate'], { env, stdio: 'ignore' });

const child = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0', '--json'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
await new Promise((resolve, reject) => {
  child.stdout.on('data', (chunk) => String(chunk).includes('"url"') && resolve());
  child.once('exit', (code) => reject(new Error(`gateway serve exited ${code}`)));
});

const field = (status, name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)[1]) / 1024;
console.log(`${bin} serve, config ${option(args, 'config', 'config/gateway.example.yaml')}`);
console.log('s after listening | VmRSS MB | anonymous | file-backed');
for (let at = every; at <= seconds; at += every) {
  await sleep(every * 1000);
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  console.log(`${at} | ${field(status, 'VmRSS').toFixed(1)} | ${field(status, 'RssAnon').toFixed(1)} | ${field(status, 'RssFile').toFixed(1)}`);
}
child.kill('SIGTERM');
