// The import graph between the top-level folders of src/ (src/services.ts counts as a folder of
// its own, "services"), measured against the folder order docs/development.md declares (its
// Layout section, between the "folder layers" markers). Only imports that remain at run time
// count: `import type` and `export type` leave nothing after compilation; `import '…'`,
// `export … from` and `import('…')` do. test/architecture/folder-layers.test.ts keeps the graph
// free of cycles and of upward imports; run directly, this prints both numbers:
//
//   node scripts/folder-graph.mjs [ROOT]   # ROOT: another checkout to measure (default: this one)
//
// The order is always this checkout's, so an older tree can be measured against today's layers.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** @typedef {{ from: string, to: string, file: string, target: string }} FolderImport */
/** @typedef {{ from: string, to: string, why: string }} AllowedUpward */

const layersStart = '<!-- folder layers:';
const layersEnd = '<!-- end of folder layers -->';

/**
 * The declared order, lowest first, and the upward imports it allows ("from → to: why" lines),
 * read from docs/development.md: one folder per line, its name first.
 * @returns {{ order: string[], allowedUpward: AllowedUpward[] }}
 */
export function declaredLayers(root = repositoryRoot) {
  const text = readFileSync(path.join(root, 'docs', 'development.md'), 'utf8');
  const start = text.indexOf(layersStart);
  const end = text.indexOf(layersEnd);
  if (start < 0 || end < start) throw new Error(`docs/development.md has no "${layersStart} … ${layersEnd}" block`);
  /** @type {string[]} */
  const order = [];
  /** @type {AllowedUpward[]} */
  const allowedUpward = [];
  for (const line of text.slice(text.indexOf('\n', start) + 1, end).split('\n')) {
    const exception = /^\s*([a-z-]+)\s*→\s*([a-z-]+):\s*(\S.*)$/.exec(line);
    if (exception) allowedUpward.push({ from: exception[1], to: exception[2], why: exception[3] });
    else if (/^[a-z][a-z-]*(\s|$)/.test(line)) order.push(line.split(/\s/)[0]);
  }
  return { order, allowedUpward };
}

/** Every .ts file under `dir`, recursively. */
function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The relative module specifiers a file names at run time (the forms test/helpers/source-imports.ts reads).
 * @param {string} text
 * @returns {string[]}
 */
export function runtimeSpecifiers(text) {
  const pattern = /(?:^\s*(import|export)(\s+type)?\b[^'";]*?\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\3/gm;
  return [...text.matchAll(pattern)].filter((match) => match[2] === undefined && match[4].startsWith('.')).map((match) => match[4]);
}

/** The folder of src/ a path is in: its first segment, or the file's own name for a file directly under src/. */
function folderOf(sourceRoot, file) {
  const parts = path.relative(sourceRoot, file).split(path.sep);
  return parts.length === 1 ? parts[0].replace(/\.[jt]s$/, '') : parts[0];
}

/**
 * Each run-time import from one folder of src/ into another (file and target relative to root).
 * @returns {FolderImport[]}
 */
export function folderImports(root = repositoryRoot) {
  const sourceRoot = path.join(root, 'src');
  /** @type {FolderImport[]} */
  const imports = [];
  for (const file of sourceFiles(sourceRoot)) {
    for (const specifier of runtimeSpecifiers(readFileSync(file, 'utf8'))) {
      const target = path.resolve(path.dirname(file), specifier);
      if (!target.startsWith(sourceRoot + path.sep)) continue;
      const from = folderOf(sourceRoot, file);
      const to = folderOf(sourceRoot, target);
      if (from !== to) imports.push({ from, to, file: path.relative(root, file), target: path.relative(root, target) });
    }
  }
  return imports;
}

/**
 * The folders of src/: its directories, and its files as folders of their own.
 * @returns {string[]}
 */
export function sourceFolders(root = repositoryRoot) {
  return readdirSync(path.join(root, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'))
    .map((entry) => (entry.isDirectory() ? entry.name : entry.name.replace(/\.ts$/, '')));
}

/**
 * The strongly connected components of more than one folder (Tarjan), each sorted by name.
 * @param {readonly FolderImport[]} imports
 * @returns {string[][]}
 */
export function knotsOf(imports) {
  const next = new Map();
  for (const { from, to } of imports) {
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    next.get(from).add(to);
  }
  let counter = 0;
  const index = new Map();
  const lowest = new Map();
  const stack = [];
  const onStack = new Set();
  const knots = [];
  const visit = (folder) => {
    index.set(folder, counter);
    lowest.set(folder, counter);
    counter += 1;
    stack.push(folder);
    onStack.add(folder);
    for (const target of next.get(folder)) {
      if (!index.has(target)) {
        visit(target);
        lowest.set(folder, Math.min(lowest.get(folder), lowest.get(target)));
      } else if (onStack.has(target)) lowest.set(folder, Math.min(lowest.get(folder), index.get(target)));
    }
    if (lowest.get(folder) !== index.get(folder)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== folder);
    if (component.length > 1) knots.push(component.sort());
  };
  for (const folder of next.keys()) if (!index.has(folder)) visit(folder);
  return knots;
}

/**
 * The imports from a folder to one later in `order` that `allowedUpward` does not list; a folder
 * missing from the order counts as upward.
 * @param {readonly FolderImport[]} imports
 * @param {readonly string[]} order
 * @param {readonly AllowedUpward[]} [allowedUpward]
 * @returns {FolderImport[]}
 */
export function upwardImports(imports, order, allowedUpward = []) {
  const rank = new Map(order.map((folder, position) => [folder, position]));
  const allowed = new Set(allowedUpward.map(({ from, to }) => `${from}→${to}`));
  return imports.filter(({ from, to }) => !(rank.get(from) > rank.get(to)) && !allowed.has(`${from}→${to}`));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const measured = path.resolve(process.argv[2] ?? repositoryRoot);
  const { order, allowedUpward } = declaredLayers();
  const imports = folderImports(measured);
  const knots = knotsOf(imports);
  const upward = upwardImports(imports, order, allowedUpward);
  console.log(`${measured}: ${knots.length} ${knots.length === 1 ? 'knot' : 'knots'}${knots.map((knot) => `\n  (${knot.length}) ${knot.join(' ')}`).join('')}`);
  console.log(`upward imports: ${upward.length} (in the order of docs/development.md${allowedUpward.length > 0 ? `, besides ${allowedUpward.length} allowed` : ''})`);
  const byPair = new Map();
  for (const { from, to } of upward) byPair.set(`${from} → ${to}`, (byPair.get(`${from} → ${to}`) ?? 0) + 1);
  for (const [pair, count] of [...byPair].sort()) console.log(`  ${pair}: ${count}`);
}
