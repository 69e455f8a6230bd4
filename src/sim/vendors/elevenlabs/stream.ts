// ElevenLabs' streamed speech (`POST /v1/text-to-speech/{voice_id}/stream`): the same audio as
// the whole answer, sent chunked (no content-length) in `streamChunks` pieces as it is "spoken".
// A test paces it without timers by a gate: with `[[sim:gate=N]]` in the text, the first piece
// goes at once and each next one only when gate N is released once:
//   POST /elevenlabs/__sim/gates/N   release one piece; GET the same: {released, sent, ended}
// Gates belong to one simulator (kept by its prefix cache, as its other per-instance state).
import type { ServerResponse } from 'node:http';
import type { PrefixCache } from '../../prefix-cache.js';

export const streamChunks = 4;

interface Gate {
  released: number;
  sent: number;
  ended: boolean;
  wake?: () => void;
}

const gatesByCache = new WeakMap<PrefixCache, Map<number, Gate>>();

function gateOf(cache: PrefixCache, id: number): Gate {
  let gates = gatesByCache.get(cache);
  if (!gates) gatesByCache.set(cache, (gates = new Map()));
  let gate = gates.get(id);
  if (!gate) gates.set(id, (gate = { released: 0, sent: 0, ended: false }));
  return gate;
}

/** The gate a text asks for, if any. */
export function gateIdOf(text: string): number | undefined {
  const match = /\[\[sim:gate=(\d+)\]\]/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** `/__sim/gates/N`: POST releases one piece; both answer the gate's state. Undefined when the path is another. */
export function gateAnswer(cache: PrefixCache, method: string | undefined, path: string): { released: number; sent: number; ended: boolean } | undefined {
  const match = /^\/__sim\/gates\/(\d+)$/.exec(path);
  if (!match) return undefined;
  const gate = gateOf(cache, Number(match[1]));
  if (method === 'POST') {
    gate.released += 1;
    gate.wake?.();
  }
  return { released: gate.released, sent: gate.sent, ended: gate.ended };
}

/** The audio in pieces, each written as soon as it may be (at once, or when its gate lets it). */
export async function answerStream(cache: PrefixCache, response: ServerResponse, audio: Uint8Array, contentType: string, headers: Record<string, string>, gateId: number | undefined): Promise<void> {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(200, { 'content-type': contentType, 'transfer-encoding': 'chunked', ...headers });
  const size = Math.ceil(audio.length / streamChunks);
  const gate = gateId === undefined ? undefined : gateOf(cache, gateId);
  for (let index = 0; index < streamChunks; index++) {
    if (gate && index > 0 && !(await released(gate, index, response))) return;
    const piece = audio.subarray(index * size, (index + 1) * size);
    if (piece.length > 0) response.write(piece);
    if (gate) gate.sent = index + 1;
  }
  response.end();
  if (gate) gate.ended = true;
}

/** Waits until the gate was released `count` times; false when the client (the gateway) left first. */
function released(gate: Gate, count: number, response: ServerResponse): Promise<boolean> {
  if (gate.released >= count) return Promise.resolve(true);
  return new Promise((resolve) => {
    const gone = () => resolve(false);
    response.once('close', gone);
    gate.wake = () => {
      if (gate.released < count) return;
      gate.wake = undefined;
      response.off('close', gone);
      resolve(true);
    };
  });
}
