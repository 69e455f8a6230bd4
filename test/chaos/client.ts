// One HTTP exchange of the chaos load: the whole response read (a stream to its end), with a
// deadline so an outage cannot stall a round, and the outcome classified instead of thrown —
// a connection cut by a SIGKILL is an expected outcome here, not an error of the harness.

export interface ChaosRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly key?: string;
  /** A JSON value (sent as JSON) or raw bytes with their own content-type in `headers`. */
  readonly json?: unknown;
  readonly raw?: Uint8Array;
  readonly headers?: Record<string, string>;
}

export interface ChaosResponse {
  /** 0: no HTTP answer (connection refused, reset or cut mid-body, or the deadline). */
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  /** Why there was no complete answer. */
  readonly transportError?: string;
}

export async function send(baseUrl: string, request: ChaosRequest, timeoutMs: number): Promise<ChaosResponse> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.key) headers.authorization = `Bearer ${request.key}`;
  let body: Uint8Array | string | undefined = request.raw;
  if (request.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(request.json);
  }
  let status = 0;
  let contentType = '';
  try {
    const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
    status = response.status;
    contentType = response.headers.get('content-type') ?? '';
    const text = await response.text();
    return { status, contentType, body: text };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).name ?? String(error);
    // A status with a body cut short is still no complete answer: count it as cut.
    return { status: 0, contentType, body: '', transportError: status ? `${status} then ${reason}` : reason };
  }
}

export function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
