// The folders of src/ form layers (docs/development.md, "Folder layers"): each imports only from
// folders below it in the declared order, so the import graph between folders has no cycle and a
// folder can be read, tested and changed knowing only what is under it. Checked on the imports
// that remain at run time (scripts/folder-graph.mjs, which also prints the figures).
import test from 'ava';
import { declaredLayers, folderImports, knotsOf, runtimeSpecifiers, sourceFolders, upwardImports } from '../../scripts/folder-graph.mjs';

test('the scanner counts every import that remains at run time, and no type-only one', (t) => {
  const text = [
    "import { ledger } from '../billing/ledger.js';",
    "import type { Config } from '../config/load.js';",
    "export type { Job } from '../jobs/job.js';",
    "import {\n  formatRub,\n  parseRub,\n} from '../util/money.js';",
    "export { toGatewayError } from '../errors/to-gateway-error.js';",
    "import './side-effect.js';",
    "const { OtlpTracer } = await import('./otlp-tracer.js');",
    "import { request } from 'undici';",
  ].join('\n');
  t.deepEqual(runtimeSpecifiers(text), ['../billing/ledger.js', '../util/money.js', '../errors/to-gateway-error.js', './side-effect.js', './otlp-tracer.js']);
});

test('a cycle is a knot, and an import against the order is upward unless listed', (t) => {
  const imports = [
    { from: 'jobs', to: 'pipeline' },
    { from: 'pipeline', to: 'jobs' },
    { from: 'pipeline', to: 'util' },
    { from: 'http', to: 'pipeline' },
  ].map((edge) => ({ ...edge, file: '', target: '' }));
  t.deepEqual(knotsOf(imports), [['jobs', 'pipeline']]);
  const order = ['util', 'jobs', 'pipeline', 'http'];
  t.deepEqual(upwardImports(imports, order).map(({ from, to }) => `${from}→${to}`), ['jobs→pipeline']);
  t.deepEqual(upwardImports(imports, order, [{ from: 'jobs', to: 'pipeline', why: 'test' }]), []);
  t.deepEqual(upwardImports(imports, ['util', 'jobs', 'pipeline']).map(({ from, to }) => `${from}→${to}`), ['jobs→pipeline', 'http→pipeline'], 'a folder left out of the order counts as upward');
});

test('the declared order names every folder of src/ once, and nothing else', (t) => {
  const { order } = declaredLayers();
  t.deepEqual(
    order.filter((folder, index) => order.indexOf(folder) !== index),
    [],
    'named twice',
  );
  t.deepEqual([...order].sort(), sourceFolders().sort());
});

test('the folders of src/ import each other without a cycle', (t) => {
  const imports = folderImports();
  t.true(imports.length > 100, `only ${imports.length} imports between folders found`);
  t.deepEqual(knotsOf(imports), []);
});

test('no folder imports one above it in the declared order, besides the exceptions listed with their reason', (t) => {
  const { order, allowedUpward } = declaredLayers();
  const imports = folderImports();
  t.deepEqual(
    upwardImports(imports, order, allowedUpward).map(({ file, target }) => `${file} → ${target}`),
    [],
  );
  // An exception nothing uses any more is taken off the list.
  const rank = new Map(order.map((folder: string, position: number) => [folder, position]));
  for (const { from, to } of allowedUpward) {
    t.true(rank.get(from)! < rank.get(to)!, `${from} → ${to} is listed but runs downward`);
    t.true(imports.some((edge) => edge.from === from && edge.to === to), `${from} → ${to} is listed but no file imports it`);
  }
});
