// Errors as Bedrock sends them: the type in `x-amzn-errortype` (with AWS's trailing URI), a
// `{"message": …}` body and the type's status. In a stream, an exception message of the event
// stream (converse-render.ts) instead.
import type { ServerResponse } from 'node:http';

/** The error type Bedrock answers with for each status the simulator produces. */
const typesByStatus: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

export class AwsError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = typesByStatus[status] ?? (status >= 500 ? 'InternalServerException' : 'ValidationException'),
  ) {
    super(message);
    this.name = 'AwsError';
  }
}

export function sendAwsError(response: ServerResponse, error: AwsError, requestId: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const text = JSON.stringify({ message: error.message });
  response.writeHead(error.status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    'x-amzn-errortype': `${error.type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': requestId,
  });
  response.end(text);
}
