// What a client gets when Node's HTTP parser refuses its request before any route sees it
// (too large headers, a bad chunk, Content-Length beside Transfer-Encoding, a character HTTP
// does not allow, a request that did not arrive in time): the catalog's error in OpenAI's
// shape, with a request id, instead of Node's bare status line. The parser has no route to
// choose a dialect by (the path may not even be read), so it is always OpenAI's shape.
//
// Node hands these to the server's 'clientError' event with the socket and no request or
// response: the answer is a whole HTTP/1.1 response written on the socket, and the connection
// is closed after it (the parser cannot go on after an error). As Node's own default does, it
// is written only while the socket is writable and no response of a request in flight has
// started; otherwise, and for a socket that failed (ECONNRESET, EPIPE: the peer is gone), the
// socket is destroyed without a byte.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { encodeOpenaiError } from '../dialects/shared/openai-error.js';
import type { ErrorCode } from '../errors/catalog.js';
import { GatewayError } from '../errors/gateway-error.js';
import { newRequestId } from '../util/ids.js';

/** A parser error as Node gives it: llhttp's `HPE_*` code and its reason. */
interface ParserError extends Error {
  readonly code?: string;
  readonly reason?: string;
}

interface Limits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

/** llhttp's 400s in words a client can act on; the others name the parser's own reason. */
function malformedBecause(error: ParserError): string {
  const reason = error.reason ?? error.message;
  switch (error.code) {
    case 'HPE_INVALID_CHUNK_SIZE':
      return 'a chunk of its chunked body has an invalid size line';
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      // llhttp names the pair in either order and under any of the three codes, by which came first.
      if (/Content-Length/i.test(reason) && /Transfer-Encoding/i.test(reason)) return 'it has both Content-Length and Transfer-Encoding';
      if (error.code === 'HPE_UNEXPECTED_CONTENT_LENGTH') return 'it has more than one Content-Length';
      if (error.code === 'HPE_INVALID_CONTENT_LENGTH') return 'its Content-Length is not a number';
      return 'its Transfer-Encoding does not end with chunked';
    case 'HPE_INVALID_HEADER_TOKEN':
      return 'a header name or value has a character HTTP does not allow';
    case 'HPE_INVALID_METHOD':
      return 'its method is not an HTTP method';
    case 'HPE_INVALID_URL':
      return 'its target is not a valid path';
    case 'HPE_INVALID_EOF_STATE':
      return 'the connection was closed before the request ended';
    default:
      return `the HTTP parser refused it (${reason})`;
  }
}

/** The refusal of a request that is not HTTP/1.1 (`because`: what is wrong with it), here and for a missing Host (middleware/request-context.ts). */
export function malformedHttpRequest(because: string): GatewayError {
  return new GatewayError('malformed_http_request', `The request is not valid HTTP/1.1: ${because}; nothing was done.`);
}

/** The catalog code and message for a parser error; undefined for a socket error (nothing to answer). */
function refusalFor(error: ParserError, limits: Limits): GatewayError | undefined {
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  const refuse = (code: ErrorCode, message: string) => new GatewayError(code, `${message}; nothing was done.`);
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return refuse('request_headers_too_large', `The request's headers are over ${http.maxHeaderSize / 1024} KB in all (too many or too large)`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return refuse('chunk_extensions_too_large', "The extensions of a chunk of the request's body are too large");
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return refuse(
        'request_timeout',
        `The request did not arrive in time (its headers within ${seconds(limits.headersTimeoutMs)}, all of it within ${seconds(limits.requestTimeoutMs)})`,
      );
    default:
      if (error.code?.startsWith('HPE_')) return malformedHttpRequest(malformedBecause(error));
      return undefined;
  }
}

function responseText(refusal: GatewayError, requestId: string): string {
  const body = JSON.stringify(encodeOpenaiError(refusal, requestId));
  return [
    `HTTP/1.1 ${refusal.status} ${http.STATUS_CODES[refusal.status]}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    `request-id: ${requestId}`,
    'connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Answers the parser's refusals on `server` (its 'clientError' event) with the catalog's errors. */
export function answerParserRefusals(server: http.Server, limits: Limits, logger: Logger): void {
  // The parser reports again on every chunk that arrives after its error: one answer per socket.
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: ParserError, socket: Duplex) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const refusal = refusalFor(error, limits);
    if (!refusal) {
      socket.destroy();
      return;
    }
    const answer = () => {
      if (socket.writable) {
        const requestId = newRequestId();
        logger.info({ request_id: requestId, status: refusal.status, code: refusal.code, parser_error: error.code, reason: error.reason ?? error.message }, 'request refused by the HTTP parser');
        // Written at once (a small response goes out in the call), then closed, as Node does.
        socket.write(responseText(refusal, requestId));
      }
      socket.destroy();
    };
    // The response of a request in flight on this connection (Node's own reference, which its
    // default answer checks too).
    const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
    if (!inFlight) answer();
    else if (inFlight.req.complete) {
      // The refused request came after one that was received whole (pipelined, or on a
      // kept-alive connection): that one's answer goes first, as HTTP orders them.
      inFlight.once('finish', answer);
      inFlight.once('close', () => socket.destroy());
    } else if (!inFlight.headersSent) answer(); // the request in flight is the refused one (a bad chunk in its body)
    else socket.destroy(); // its answer has started: no other can follow on this connection
  });
}
