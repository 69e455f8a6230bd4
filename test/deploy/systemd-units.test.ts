// The API and the jobs in two systemd units (issue 30 item 17): deploy/systemd/gateway-worker.service
// runs `gateway worker` with exactly the settings of gateway.service (user, data directory,
// environment, stop timing, hardening) but its command; the drop-in gateway.service.d/no-worker.conf
// turns gateway.service into `serve --no-worker`. Read as data (systemd is not PID 1 here).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'ava';
import { parse } from 'yaml';
import { installRoot } from '../../src/config/load.js';
import { parseDuration } from '../../src/config/units.js';

const read = (file: string) => readFileSync(path.join(installRoot, file), 'utf8');

/** A unit file's settings by section, each key with its values in order (systemd keys repeat). */
function unitSettings(text: string): Map<string, [string, string][]> {
  const sections = new Map<string, [string, string][]>();
  let section = '';
  for (const line of text.split('\n')) {
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) sections.set((section = header[1]!), []);
    const setting = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (setting) sections.get(section)!.push([setting[1]!, setting[2]!]);
  }
  return sections;
}

const serveUnit = unitSettings(read('deploy/systemd/gateway.service'));
const workerUnit = unitSettings(read('deploy/systemd/gateway-worker.service'));
const values = (unit: Map<string, [string, string][]>, section: string, key: string) => (unit.get(section) ?? []).filter(([name]) => name === key).map(([, value]) => value);

test('gateway-worker.service runs `gateway worker` with every other setting of gateway.service: user, data directory, stop timing, hardening', (t) => {
  t.deepEqual(values(workerUnit, 'Service', 'ExecStart'), ['/opt/gateway/bin/gateway worker']);
  const withoutCommand = (unit: Map<string, [string, string][]>) => unit.get('Service')!.filter(([name]) => name !== 'ExecStart');
  t.deepEqual(withoutCommand(workerUnit), withoutCommand(serveUnit), 'the [Service] settings are the same, in the same order');
  t.deepEqual(workerUnit.get('Install'), serveUnit.get('Install'));
  t.deepEqual(workerUnit.get('Unit')!.filter(([name]) => name !== 'Description'), serveUnit.get('Unit')!.filter(([name]) => name !== 'Description'));
  t.regex(values(workerUnit, 'Unit', 'Description')[0]!, /worker/);
  // What the serve unit's own test checks, checked here for the worker too.
  t.is(values(workerUnit, 'Service', 'User')[0], 'gateway');
  t.is(values(workerUnit, 'Service', 'ProtectSystem')[0], 'strict');
  t.is(values(workerUnit, 'Service', 'ReadWritePaths')[0], '/var/lib/gateway');
  t.is(values(workerUnit, 'Service', 'NoNewPrivileges')[0], 'yes');
  t.is(values(workerUnit, 'Service', 'CapabilityBoundingSet')[0], '');
  const example = parse(read('config/gateway.example.yaml')) as { server: { drain_timeout: string } };
  t.true(parseDuration(values(workerUnit, 'Service', 'TimeoutStopSec')[0]!) > parseDuration(example.server.drain_timeout), "TimeoutStopSec outlasts the runner's drain (server.drain_timeout)");
});

test('the no-worker drop-in clears the ExecStart of gateway.service and runs `serve --no-worker`, a real flag', async (t) => {
  const dropIn = unitSettings(read('deploy/systemd/gateway.service.d/no-worker.conf'));
  t.deepEqual([...dropIn.keys()], ['Service']);
  t.deepEqual(dropIn.get('Service'), [
    ['ExecStart', ''],
    ['ExecStart', '/opt/gateway/bin/gateway serve --no-worker'],
  ]);
  const serve = (await import(pathToFileURL(path.join(installRoot, 'commands', 'serve.ts')).href)) as { default: { flags: Record<string, { allowNo?: boolean }> } };
  t.true(serve.default.flags.worker!.allowNo);
  const guide = read('docs/deployment.md');
  for (const file of ['deploy/systemd/gateway-worker.service', 'deploy/systemd/gateway.service.d/no-worker.conf']) t.true(guide.includes(file), `docs/deployment.md says how to install ${file}`);
});
