// One path for money (issue 33): billable work — chat, media, jobs — holds, settles and
// releases only through the charge envelope (src/billing/charge-envelope.ts). This test finds,
// with the type checker, every call of Ledger's and PendingSettles' hold, settle and release in
// src/ and commands/, and fails on a caller outside the short list below.
import { dirname, relative } from 'node:path';
import test from 'ava';
import ts from 'typescript';

/** The methods that move held money. */
const moneyMethods = new Set(['hold', 'settle', 'release', 'holdWithin', 'settleWithin', 'releaseWithin']);
const moneyClasses = new Set(['Ledger', 'PendingSettles']);

/** Who may call them, and why. */
const allowedCallers: Record<string, string> = {
  'src/billing/charge-envelope.ts': 'the one path for billable work',
  'src/billing/pending-settles.ts': 'the envelope\'s retrying writer over the ledger',
  'src/billing/ledger.ts': 'its own sweep of expired holds (releaseExpired)',
  'src/billing/hold-owners.ts': 'the sweep that releases the holds of a process that died',
};

function moneyCallers(): Map<string, string[]> {
  const configPath = ts.findConfigFile('.', ts.sys.fileExists, 'tsconfig.json')!;
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, dirname(configPath));
  const program = ts.createProgram(config.fileNames, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const callers = new Map<string, string[]>();
  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile || source.fileName.includes('node_modules')) continue;
    const file = relative(process.cwd(), source.fileName);
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && moneyMethods.has(node.expression.name.text)) {
        const declaration = checker.getSymbolAtLocation(node.expression.name)?.declarations?.[0];
        const owner = declaration?.parent;
        if (owner && ts.isClassDeclaration(owner) && owner.name && moneyClasses.has(owner.name.text)) {
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          callers.set(file, [...(callers.get(file) ?? []), `${owner.name.text}.${node.expression.name.text} at line ${line}`]);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return callers;
}

test('only the charge envelope (and the sweeps that release dead holds) hold, settle or release money', (t) => {
  const callers = moneyCallers();
  t.true(callers.has('src/billing/charge-envelope.ts'), 'the scan finds the envelope\'s own calls');
  const outside = [...callers].filter(([file]) => !(file in allowedCallers)).map(([file, calls]) => `${file}: ${calls.join(', ')}`);
  t.deepEqual(outside, [], 'every other caller goes through src/billing/charge-envelope.ts');
});
