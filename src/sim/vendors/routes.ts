// The vendors the simulator plays under a path prefix of their own (`/gemini/…`, `/bedrock/…`),
// each on its own wire and with its own error bodies: a provider of that kind reaches it with
// `base_url: <simulator>/<prefix>`. The OpenAI, Anthropic, System One, Suno-style and Stability
// wires predate this table and stay at the root (server.ts, media/routes.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PrefixCache } from '../prefix-cache.js';
import type { UsageBook } from '../usage-book.js';
import { handleBfl } from './bfl/handler.js';
import { handleElevenLabs } from './elevenlabs/handler.js';
import { handleKling } from './kling/index.js';
import { handleBedrock } from './bedrock/handler.js';
import { handleGemini } from './gemini/handler.js';
import { handleGigachat } from './gigachat/handler.js';
import { handleYandex } from './yandex/handler.js';

export interface VendorSimRequest {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  /** The path after the vendor's prefix: `/v1beta/models/x:generateContent` for /gemini/v1beta/…. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** The simulator's own base address (http://127.0.0.1:PORT), for result URLs it hands out. */
  readonly origin: string;
  /** The prefix cache and usage book the OpenAI and Anthropic wires share, for cached-token usage. */
  readonly cache: PrefixCache;
  readonly usage: UsageBook;
}

/** A vendor's handler answers every request under its prefix (404 in its own shape when unknown). */
export type VendorSimHandler = (request: VendorSimRequest) => Promise<void>;

/** Prefix (without slashes) → the vendor's handler. One line per simulated vendor. */
const vendorSimulators: Record<string, VendorSimHandler> = {
  bfl: handleBfl,
  elevenlabs: handleElevenLabs,
  kling: handleKling,
  bedrock: handleBedrock,
  gemini: handleGemini,
  yandex: handleYandex,
  gigachat: handleGigachat,
};

/** The handler and the rest of the path when `path` is under a vendor's prefix; else undefined. */
export function vendorSimulatorFor(path: string): { handler: VendorSimHandler; rest: string } | undefined {
  const match = /^\/([a-z0-9-]+)(\/.*)$/.exec(path);
  if (!match || !Object.hasOwn(vendorSimulators, match[1]!)) return undefined;
  return { handler: vendorSimulators[match[1]!]!, rest: match[2]! };
}
