// Where the pipeline writes a response, without knowing about Koa: a JSON body, or a stream
// (SSE, or streamed speech's raw audio) committed (status 200, headers) on the first write.
// The HTTP layer implements it.

export interface ResponseSink {
  /** Sets a response header; only before the response is committed (startStream or sendJson). */
  setHeader(name: string, value: string): void;
  /** Commits the 200 and the stream's headers (SSE unless another type is given). Nothing can be an HTTP error after this. */
  startStream(contentType?: string): void;
  /** Writes SSE text (or audio bytes) immediately (no buffering). */
  write(data: string | Uint8Array): void;
  end(): void;
  /** Cuts the connection: a stream whose body has no way to carry an error (raw audio) is seen as broken, not as complete. */
  abort(): void;
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
