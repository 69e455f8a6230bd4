// Waiting for something that happens on its own time (a job ending, a webhook arriving, a
// process gone, a row written by a background batch): look again until it holds. This is the
// one polling loop of the suite; tests do not sleep and then assert.
//
// The deadline is not a performance bound and no test asserts on how long the wait took. It is
// generous (60 s by default, against ava's 3 min per test) so that it ends only a test that
// would otherwise hang — with a message naming what never happened — and never fails a slow
// but correct run on a loaded machine.
import { setTimeout as sleep } from 'node:timers/promises';

export const eventuallyDeadlineMs = 60_000;

export interface EventuallyOptions {
  /** What is awaited, for the failure message ("the job is completed"). */
  readonly what?: string;
  /** Between looks (default 20 ms): short enough not to slow a test, long enough to leave the CPU to the work. */
  readonly intervalMs?: number;
  /** Only for a wait that must be longer than the default (a process restart under load). */
  readonly deadlineMs?: number;
}

/**
 * Calls `check` until it returns a truthy value and returns that value; throws (naming
 * `what` and the last value seen) when it has not after the deadline.
 */
export async function eventually<T>(check: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<NonNullable<T>> {
  const { what = 'the condition', intervalMs = 20, deadlineMs = eventuallyDeadlineMs } = options;
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() >= deadline) throw new Error(`${what}: still not so after ${deadlineMs} ms (last seen: ${describe(value)})`);
    await sleep(intervalMs); // the pause between looks: what is awaited is the check above
  }
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
