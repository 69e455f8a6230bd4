// AWS's binary event stream (`application/vnd.amazon.eventstream`, Bedrock's ConverseStream)
// cut into events: each message is a 12-byte prelude (total length, headers length, CRC),
// typed headers, a payload and a CRC of it all. @smithy/core's codec checks both CRCs and
// reads the headers; what it does not do is find where a message ends in a body that arrives
// in arbitrary pieces, which is done here from the prelude's total length.
//   `:message-type: event`     → { event: its `:event-type`, data: the payload as UTF-8 (JSON) }
//   `:message-type: exception` → an UpstreamError (throttlingException, internalServerException…)
//   `:message-type: error`     → an UpstreamError from `:error-code` / `:error-message`
// A message whose checksum does not match is a broken stream: an UpstreamError too.
import type { EventStreamCodec } from '@smithy/core/event-streams';
import { awsEventCodec } from '../../util/aws-event-codec.js';
import type { SseEvent } from '../types.js';
import { UpstreamError } from '../types.js';
import { isObject, stringOf } from './json.js';

/** Prelude (8) + prelude CRC (4) + message CRC (4): the smallest message. */
const minimumMessageBytes = 16;
/** AWS caps a message at 16 MiB; a larger length is a broken stream, not a reason to buffer. */
const maximumMessageBytes = 16 * 1024 * 1024 + 1024;

/**
 * In-stream exceptions by their `:exception-type`, with the HTTP status the same error has when
 * the request itself fails, and whether trying again may succeed. Unknown types: status 0, final.
 */
const exceptions: Record<string, { readonly status: number; readonly retryable: boolean }> = {
  throttlingException: { status: 429, retryable: true },
  serviceUnavailableException: { status: 503, retryable: true },
  internalServerException: { status: 500, retryable: true },
  // "An error occurred while streaming the response. Retry your request."
  modelStreamErrorException: { status: 424, retryable: true },
  modelTimeoutException: { status: 408, retryable: true },
  validationException: { status: 400, retryable: false },
};

export function awsEventStream(onEvent: (event: SseEvent) => void): { feed(chunk: Buffer): void; end(): void } {
  let pending: Buffer = Buffer.alloc(0);
  return {
    feed(chunk) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 4) {
        const length = pending.readUInt32BE(0);
        if (length < minimumMessageBytes || length > maximumMessageBytes) throw brokenStream(`a message of ${length} bytes`);
        if (pending.length < length) break;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        onEvent(eventOf(message));
      }
    },
    end() {
      // A partial message at the end is a cut stream: the adapter's parser tells (it saw no stop).
      pending = Buffer.alloc(0);
    },
  };
}

function eventOf(bytes: Buffer): SseEvent {
  let message: ReturnType<EventStreamCodec['decode']>;
  try {
    message = awsEventCodec().decode(bytes);
  } catch (error) {
    throw brokenStream((error as Error).message);
  }
  const header = (name: string): string | undefined => {
    const value = message.headers[name];
    return value?.type === 'string' ? value.value : undefined;
  };
  const data = Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength).toString('utf8');
  const messageType = header(':message-type') ?? 'event';
  if (messageType === 'exception') throw exceptionOf(header(':exception-type') ?? 'exception', data);
  if (messageType === 'error') {
    const code = header(':error-code') ?? 'error';
    throw new UpstreamError(header(':error-message') ?? `the upstream stream failed (${code})`, 0, false, code);
  }
  const event = header(':event-type');
  return event === undefined ? { data } : { event, data };
}

function exceptionOf(type: string, payload: string): UpstreamError {
  let message: string | undefined;
  try {
    const body: unknown = JSON.parse(payload);
    if (isObject(body)) message = stringOf(body.message) ?? stringOf(body.Message);
  } catch {
    // Not JSON: the type alone says what happened.
  }
  const known = Object.hasOwn(exceptions, type) ? exceptions[type] : undefined;
  return new UpstreamError(message ?? `the upstream reported ${type} in the stream`, known?.status ?? 0, known?.retryable ?? false, type);
}

function brokenStream(what: string): UpstreamError {
  return new UpstreamError(`the upstream sent a broken event stream: ${what}`, 0, false, 'invalid_stream');
}
