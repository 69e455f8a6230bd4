// The simulated shop's notifications: `{type: "notification", event, object}` POSTed as JSON to
// every URL subscribed to the event, in the background (the page that caused it does not wait,
// as YooKassa's does not). A delivery that fails (not 2xx, refused, timed out) is tried again a
// few times, YooKassa's way in small; the gateway must take the repeats as one. Unsigned, like
// YooKassa's. Everything pending is dropped when the simulator stops.
import type { NotifyMode, SimEvent } from './shop.js';

/** Waits before each retry: short, since a test or a demo waits on them. */
const retryDelaysMs = [200, 1_000, 3_000];
const attemptTimeoutMs = 5_000;

export class Notifier {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<AbortController>();
  private closed = false;

  /** Sends each event to its subscribers, as its fault switch says (`none`: not at all; `twice`: two copies at once). */
  send(events: readonly SimEvent[], subscribers: (event: string) => string[]): void {
    for (const event of events) {
      const copies = copiesOf(event.notify);
      const body = JSON.stringify({ type: 'notification', event: event.event, object: event.object });
      for (const url of subscribers(event.event)) for (let copy = 0; copy < copies; copy++) this.attempt(url, body, 0);
    }
  }

  private attempt(url: string, body: string, attempt: number): void {
    if (this.closed) return;
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timeout = setTimeout(() => controller.abort(), attemptTimeoutMs);
    timeout.unref();
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: controller.signal, redirect: 'manual' })
      .then(async (response) => {
        await response.arrayBuffer().catch(() => undefined); // read to the end: the connection goes back to the pool
        return response.ok;
      })
      .catch(() => false)
      .then((delivered) => {
        clearTimeout(timeout);
        this.inFlight.delete(controller);
        const delay = retryDelaysMs[attempt];
        if (delivered || this.closed || delay === undefined) return;
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.attempt(url, body, attempt + 1);
        }, delay);
        timer.unref();
        this.timers.add(timer);
      });
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const controller of this.inFlight) controller.abort();
    this.inFlight.clear();
  }
}

function copiesOf(mode: NotifyMode): number {
  return mode === 'none' ? 0 : mode === 'twice' ? 2 : 1;
}
