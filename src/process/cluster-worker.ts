// A worker of `serve --workers N` (src/process/cluster-primary.ts): the same `gateway serve`,
// started by the primary through node:cluster. It asks the primary for its role (whether it runs
// the job runner), shares the in-memory state through it (cluster-state.ts), announces itself to
// it instead of on stdout, and stops when the primary says so (a stop or a reload) or is gone.
// SIGHUP is the primary's: a terminal's hangup reaches the whole process group, and a worker
// must not die of it.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { StartOptions } from './start.js';
import { ClusterClient } from './cluster-state.js';

/** primary → worker */
export type ToWorker = { readonly t: 'role'; readonly jobRunner: boolean } | { readonly t: 'stop' };
/** worker → primary (besides the shared-state calls) */
export type ToPrimary = { readonly t: 'hello' } | { readonly t: 'ready'; readonly url: string; readonly pid: number } | { readonly t: 'failed'; readonly message: string };

export interface ClusterWorker {
  /** Whether this worker runs the job runner (one worker of the machine does). */
  readonly jobRunner: boolean;
  readonly startOptions: NonNullable<StartOptions['clusterWorker']>;
  /** Tells the primary why this worker could not start (a reload then keeps the old workers). */
  failed(error: unknown): void;
}

/** Header naming the worker that answered (its pid): which of the machine's processes to look at in its log. */
export const workerHeader = 'x-gateway-worker';

/** Names this worker in every response of `server` (set before the app runs, so refusals carry it too). */
export function nameWorkerInResponses(server: Server): void {
  const pid = String(process.pid);
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => response.setHeader(workerHeader, pid));
}

export async function joinCluster(): Promise<ClusterWorker> {
  process.on('SIGHUP', () => undefined);
  const send = (message: ToPrimary) => process.send!(message);
  const state = new ClusterClient();
  const jobRunner = await new Promise<boolean>((resolve) => {
    const onRole = (message: ToWorker) => {
      if (message?.t !== 'role') return;
      process.off('message', onRole);
      resolve(message.jobRunner);
    };
    process.on('message', onRole);
    send({ t: 'hello' });
  });
  return {
    jobRunner,
    startOptions: {
      state,
      announce: (line) => send({ t: 'ready', url: String(line.url), pid: process.pid }),
      onStopRequest(stop) {
        process.on('message', (message: ToWorker) => message?.t === 'stop' && stop('primary'));
        process.once('disconnect', () => stop('primary gone'));
      },
    },
    failed(error) {
      if (process.connected) send({ t: 'failed', message: error instanceof Error ? error.message : String(error) });
    },
  };
}
