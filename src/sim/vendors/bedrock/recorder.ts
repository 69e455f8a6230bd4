// The last requests each simulator instance received under /bedrock, as they came (method,
// path, headers, body), so a test can recompute their SigV4 signature with the key it gave
// the gateway. Keyed by the simulator's origin: one process may run several simulators.
import type { IncomingHttpHeaders } from 'node:http';

export interface RecordedRequest {
  readonly method: string;
  /** The full request path (with the /bedrock prefix) and query, as sent. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const keptPerSimulator = 20;
const maxSimulators = 50;
const requests = new Map<string, RecordedRequest[]>();

export function recordRequest(origin: string, request: RecordedRequest): void {
  let list = requests.get(origin);
  if (!list) {
    if (requests.size >= maxSimulators) requests.delete(requests.keys().next().value!);
    requests.set(origin, (list = []));
  }
  list.push(request);
  if (list.length > keptPerSimulator) list.shift();
}

export function recordedRequests(origin: string): readonly RecordedRequest[] {
  return requests.get(origin) ?? [];
}
