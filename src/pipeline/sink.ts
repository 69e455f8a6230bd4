// Where the pipeline writes a response, without knowing about Koa: a JSON body, or an SSE
// stream committed (status 200, headers) on the first write. The HTTP layer implements it.

export interface ResponseSink {
  /** Sets a response header; only before the response is committed (startStream or sendJson). */
  setHeader(name: string, value: string): void;
  /** Commits the 200 and the SSE headers. Nothing can be an HTTP error after this. */
  startStream(): void;
  /** Writes SSE text immediately (no buffering). */
  write(text: string): void;
  end(): void;
  /** A whole JSON response (non-streaming clients). */
  sendJson(body: unknown): void;
  /** Called once if the client goes away before the response ended. */
  onClose(listener: () => void): void;
}

/** The reason the upstream request was aborted when the client disconnected. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection');
    this.name = 'ClientGoneError';
  }
}
