// AWS's binary event-stream codec (@smithy/core), made on first use: only a Bedrock upstream's
// ConverseStream and the simulator's Bedrock answers use it, and @smithy/core's event-stream and
// serde modules are 1.7 MB of V8 heap that every other process would hold for nothing
// (docs/performance.md, "Idle memory"). Required synchronously (@smithy/core ships CommonJS for
// Node under both conditions, so it is the same module an `import` would load): the stream
// parser that first needs it is itself synchronous.
import { createRequire } from 'node:module';
import type { EventStreamCodec } from '@smithy/core/event-streams';

type EventStreams = typeof import('@smithy/core/event-streams');
type Serde = typeof import('@smithy/core/serde');

let codec: EventStreamCodec | undefined;
let serde: Serde | undefined;

function serdeModule(): Serde {
  return (serde ??= createRequire(import.meta.url)('@smithy/core/serde') as Serde);
}

/** The shared codec: it keeps no state between encode and decode calls. */
export function awsEventCodec(): EventStreamCodec {
  if (codec === undefined) {
    const { EventStreamCodec: Codec } = createRequire(import.meta.url)('@smithy/core/event-streams') as EventStreams;
    const { fromUtf8, toUtf8 } = serdeModule();
    codec = new Codec(toUtf8, fromUtf8);
  }
  return codec;
}

/** A string's UTF-8 bytes, as the codec takes a message body. */
export function utf8Bytes(text: string): Uint8Array {
  return serdeModule().fromUtf8(text);
}
