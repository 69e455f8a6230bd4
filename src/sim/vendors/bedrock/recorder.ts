// The last requests each simulator instance received under /bedrock, as they came (method,
// path, headers, body), with the usage the simulator reported for each: a test recomputes
// their SigV4 signature with the key it gave the gateway, and checks the charge against that
// usage. Keyed by the simulator's origin: one process may run several simulators.
import type { IncomingHttpHeaders } from 'node:http';

export interface RecordedRequest {
  readonly method: string;
  /** The full request path (with the /bedrock prefix) and query, as sent. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The Converse usage the answer reported (absent: refused, or a stream without usage). */
  usage?: Record<string, number>;
}

const keptPerSimulator = 20;
const maxSimulators = 50;
const requests = new Map<string, RecordedRequest[]>();

/** Keeps `request` (the caller may add its usage later) and returns it. */
export function recordRequest(origin: string, request: RecordedRequest): RecordedRequest {
  let list = requests.get(origin);
  if (!list) {
    if (requests.size >= maxSimulators) requests.delete(requests.keys().next().value!);
    requests.set(origin, (list = []));
  }
  list.push(request);
  if (list.length > keptPerSimulator) list.shift();
  return request;
}

export function recordedRequests(origin: string): readonly RecordedRequest[] {
  return requests.get(origin) ?? [];
}
