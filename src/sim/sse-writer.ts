// Writes a prepared stream to the client one event per res.write (no buffering), optionally
// paced by a delay between events, and carries out the mid-stream faults (an error event or
// a dropped socket). It stops at once when the client goes away and leaves no timer behind.
import type { ServerResponse } from 'node:http';

export interface PreparedStream {
  /** Complete SSE events, in order (or binary messages: AWS's event stream, Bedrock). */
  readonly frames: readonly (string | Uint8Array)[];
  /** How many frames precede a mid-stream fault ("after half the chunks"). */
  readonly faultAt: number;
  /** The protocol's in-stream error event, for [[sim:fail-mid]]. */
  readonly errorFrame: string | Uint8Array;
}

export interface StreamOptions {
  readonly delayMs: number;
  readonly fault: 'fail-mid' | 'drop' | null;
}

/** Resolves after `ms`, or as soon as the response closes; never keeps a timer for a closed client. */
export class ClientWatch {
  closed = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(response: ServerResponse) {
    response.once('close', () => {
      this.closed = true;
      if (this.timer) clearTimeout(this.timer);
      this.wake?.();
    });
  }

  sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.wake = undefined;
        resolve();
      }, ms);
    });
  }

  /** Waits for the socket to take more data (or for the client to leave). */
  drain(response: ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        response.off('drain', done);
        response.off('close', done);
        resolve();
      };
      response.once('drain', done);
      response.once('close', done);
    });
  }
}

export const sseHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

export async function writeStream(response: ServerResponse, watch: ClientWatch, stream: PreparedStream, options: StreamOptions, headers: Record<string, string>): Promise<void> {
  if (watch.closed) return;
  response.writeHead(200, { ...sseHeaders, ...headers });
  const stopAt = options.fault ? stream.faultAt : stream.frames.length;
  for (let index = 0; index < stopAt; index++) {
    if (index > 0 && options.delayMs > 0) await watch.sleep(options.delayMs);
    if (watch.closed) return;
    if (!response.write(stream.frames[index]!)) await watch.drain(response);
  }
  if (watch.closed) return;
  if (options.fault === 'drop') {
    if (options.delayMs > 0) await watch.sleep(options.delayMs);
    // Whatever was written is flushed first, then the connection is cut without a terminator.
    response.socket?.destroySoon();
    return;
  }
  if (options.fault === 'fail-mid') {
    if (options.delayMs > 0) await watch.sleep(options.delayMs);
    if (watch.closed) return;
    response.end(stream.errorFrame);
    return;
  }
  response.end();
}
