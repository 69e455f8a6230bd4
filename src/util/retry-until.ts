// The two pieces every background retry here shares (pending settles, batched inserts): a delay
// that doubles per failure up to a cap, and a graceful stop's loop that keeps trying, waiting
// that delay between attempts, until the work is done or the deadline passes.

/** base, 2·base, 4·base … up to max: the wait after the `failures`-th failure in a row (1 → base). */
export function backoffMs(failures: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** Math.min(Math.max(0, failures - 1), 30), maxMs);
}

export interface RetryUntil {
  /** One pass at the work; it records its own failures. */
  attempt(): Promise<void>;
  done(): boolean;
  /** The wait before the next pass. */
  delayMs(): number;
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Attempts now, then after each delay, until done or `untilMs`; the last attempt is made at the deadline itself. */
export async function retryUntil(untilMs: number, retry: RetryUntil): Promise<void> {
  await retry.attempt();
  while (!retry.done() && retry.now() < untilMs) {
    await retry.sleep(Math.min(retry.delayMs(), Math.max(0, untilMs - retry.now())));
    await retry.attempt();
  }
}
