// A clock for a gateway under test (services.now), so a test skips a pause (an upstream's
// Retry-After, a file's expiry) by saying so instead of sleeping through it, and can look at
// the last millisecond before the end of a pause. It only moves forward.
//
// Stopped (the default): it reads the same until the test advances it, so what a test checks
// does not depend on how fast the machine is. `running: true` lets real time run under it (plus
// what the test advanced): for a gateway whose job runner schedules on the real clock, where a
// stopped clock would leave rescheduled work never due.
export interface TestClock {
  /** Pass as `now` (services.now). */
  readonly now: () => number;
  /** Moves the clock `ms` forward, at once. */
  advance(ms: number): void;
}

export function testClock(options: { running?: boolean; start?: number } = {}): TestClock {
  const start = options.start ?? Date.now();
  const realStart = Date.now();
  let offset = 0;
  return {
    now: options.running ? () => start + (Date.now() - realStart) + offset : () => start + offset,
    advance(ms: number) {
      if (!(ms >= 0)) throw new Error('a test clock only moves forward');
      offset += ms;
    },
  };
}
