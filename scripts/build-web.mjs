#!/usr/bin/env node
// Builds the web cabinet (web/ → dist/web/), run by `npm run build` after tsc: one minified
// ES module bundle and one stylesheet under dist/web/assets/, named by a hash of their content
// (served with a year-long cache: a new build is a new name), and dist/web/index.html naming
// them (served with no-cache). No source maps, nothing from a CDN. Prints the sizes, gzipped too.
// src/http/routes/web.ts reads the result once when the gateway starts.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outdir = path.join(root, 'dist', 'web');
const quiet = process.argv.includes('--quiet');

rmSync(outdir, { recursive: true, force: true });
mkdirSync(path.join(outdir, 'assets'), { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: ['web/src/main.tsx'],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022', 'chrome109', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: path.join(outdir, 'assets'),
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  sourcemap: false,
  legalComments: 'none',
  // The Russian dictionary as UTF-8 (2 bytes a letter) rather than \u escapes (6): the bundle is
  // served as text/javascript; charset=utf-8, and module scripts are read as UTF-8 anyway.
  charset: 'utf8',
  metafile: true,
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
});

const outputs = Object.keys(result.metafile.outputs).map((file) => path.resolve(root, file));
const script = outputs.find((file) => file.endsWith('.js'));
const stylesheet = outputs.find((file) => file.endsWith('.css'));
if (!script || !stylesheet) throw new Error(`esbuild produced ${outputs.join(', ')}: expected one .js and one .css`);
const href = (file) => `/cabinet/assets/${path.basename(file)}`;
const template = readFileSync(path.join(root, 'web', 'index.html'), 'utf8');
const index = template.replace('{{js}}', href(script)).replace('{{css}}', href(stylesheet));
if (index.includes('{{')) throw new Error('web/index.html has a placeholder build-web.mjs does not fill');
writeFileSync(path.join(outdir, 'index.html'), index);

if (!quiet) {
  let total = 0;
  let totalGzip = 0;
  for (const file of [script, stylesheet, path.join(outdir, 'index.html')]) {
    const bytes = readFileSync(file);
    const gzip = gzipSync(bytes, { level: 9 }).length;
    total += bytes.length;
    totalGzip += gzip;
    console.error(`web: ${path.relative(root, file)} ${kilobytes(bytes.length)} (${kilobytes(gzip)} gzip)`);
  }
  console.error(`web: total ${kilobytes(total)} (${kilobytes(totalGzip)} gzip)`);
}

function kilobytes(bytes) {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
