// Update mode of the dialect golden fixtures. UPDATE_FIXTURES=1 writes what the code produces
// into the fixture file and fails the test: a run in update mode is never green, so the diff is
// reviewed by a person and a normal run (which compares, never writes) has to pass before
// anything lands. .ci/run refuses to start with UPDATE_FIXTURES set.
import { writeFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';

const updating = (process.env.UPDATE_FIXTURES ?? '') !== '';

/** In update mode: writes `data` to `file` and fails the test; otherwise does nothing. */
export function rewriteFixture(t: ExecutionContext, file: string | URL, data: unknown): void {
  if (!updating) return;
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  t.fail(`UPDATE_FIXTURES is set: rewrote ${String(file)}; review the diff, then run again without UPDATE_FIXTURES`);
}
