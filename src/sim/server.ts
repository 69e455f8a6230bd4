// The upstream simulator's HTTP server: plain node:http (no framework on the hot path, since
// it is also the benchmark's upstream), routing the vendor endpoints to their protocol modules
// and answering errors in the shape of the protocol the path belongs to. Nothing needs a key.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleCountTokens, handleMessages } from './anthropic-messages.js';
import { sendJson, type SimContext } from './context.js';
import { anthropicErrorBody, openaiErrorBody, SimError } from './errors.js';
import { handleMediaGet, mediaErrorBody, mediaPostRoutes, mediaProtocolOf } from './media/routes.js';
import { simJobStats } from './media/sim-jobs.js';
import { handleChatCompletions } from './openai-chat.js';
import { PaymentSimulators } from './payments/routes.js';
import { vendorSimulatorFor } from './vendors/routes.js';
import { PrefixCache } from './prefix-cache.js';
import { defaultSigningSecret } from './signatures.js';
import { ClientWatch } from './sse-writer.js';
import { UsageBook } from './usage-book.js';
import { handleUsage, usageKindOf } from './usage-api.js';

export interface SimulatorOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Key of the thinking signatures (HMAC-SHA256); simulators sharing it accept each other's. */
  readonly signingSecret?: string;
}

export interface Simulator {
  /** Like http://127.0.0.1:PORT, no trailing slash. */
  readonly url: string;
  close(): Promise<void>;
}

type Protocol = 'openai' | 'anthropic' | 'stability' | 'systemone' | 'suno';
type Handler = (context: SimContext) => Promise<void> | void;

/** Anthropic's own request limit; larger bodies get 413 before being parsed. */
const maxBodyBytes = 32 * 1024 * 1024;

/** `rawBody`: the handler parses the body itself (multipart, System One); context.body is the Buffer. */
const postRoutes: Record<string, { protocol: Protocol; handler: Handler; rawBody?: boolean }> = {
  '/v1/chat/completions': { protocol: 'openai', handler: handleChatCompletions },
  '/v1/messages': { protocol: 'anthropic', handler: handleMessages },
  '/v1/messages/count_tokens': { protocol: 'anthropic', handler: handleCountTokens },
  ...mediaPostRoutes, // images, audio, embeddings, System One, Stability upscale (media/)
};

const simulatedModels = ['chat', 'reasoning', 'reasoning-compat', 'search', 'sonar'];
const modelCreated = 1_735_689_600; // 2025-01-01, fixed so the list is deterministic

/** One item readable by both SDKs: OpenAI reads id/object/owned_by, Anthropic type/display_name/created_at. */
function modelInfo(id: string): Record<string, unknown> {
  return { id, object: 'model', created: modelCreated, owned_by: 'sim', type: 'model', display_name: `Simulated ${id}`, created_at: new Date(modelCreated * 1000).toISOString() };
}

function protocolOf(path: string): Protocol {
  return path.startsWith('/v1/messages') ? 'anthropic' : (mediaProtocolOf(path) ?? 'openai');
}

function errorBody(protocol: Protocol, error: SimError, requestId: string): unknown {
  if (protocol === 'stability' || protocol === 'systemone' || protocol === 'suno') return mediaErrorBody(protocol, error, requestId);
  return protocol === 'anthropic' ? anthropicErrorBody(error, requestId) : openaiErrorBody(error);
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      if (size > maxBodyBytes) return; // already refused; the rest is drained, not kept
      size += chunk.length;
      if (size > maxBodyBytes) {
        chunks.length = 0;
        reject(new SimError(413, `request body larger than ${maxBodyBytes} bytes`, null, 'request_too_large'));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const signingSecret = options.signingSecret ?? defaultSigningSecret;
  const cache = new PrefixCache();
  const usage = new UsageBook();
  const instance = createHash('sha256').update(`${process.pid}:${Date.now()}:${Math.random()}`).digest('hex').slice(0, 8);
  let requestCount = 0;
  const payments = new PaymentSimulators();
  let origin = '';

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestId = `req_sim${instance}${(++requestCount).toString(36).padStart(6, '0')}`;
    const watch = new ClientWatch(response);
    const [path = '/', queryString = ''] = (request.url ?? '/').split('?', 2);
    const protocol = protocolOf(path);
    const reply = { response, requestId, watch };
    try {
      // The payment providers (payments/): their own wire, pages and errors.
      if (await payments.handle(request, response, path, queryString, origin)) return;
      // The vendors under a prefix of their own (vendors/): their own wire and errors.
      const vendor = vendorSimulatorFor(path);
      if (vendor) return await vendor.handler({ request, response, path: vendor.rest, query: new URLSearchParams(queryString), origin, cache, usage });
      if (request.method === 'GET' || request.method === 'HEAD') {
        if (path === '/healthz') return sendJson(reply, 200, { status: 'ok' });
        // Test and operator introspection, not a vendor endpoint: counts of simulated jobs.
        if (path === '/__sim/stats') return sendJson(reply, 200, simJobStats(new URLSearchParams(queryString).get('job')));
        if (path === '/v1/models') {
          const data = simulatedModels.map(modelInfo);
          return sendJson(reply, 200, { object: 'list', data, has_more: false, first_id: data[0]!.id, last_id: data[data.length - 1]!.id });
        }
        // OpenAI's organization usage API (usage-api.ts): what this simulator would bill.
        const usageKind = usageKindOf(path);
        if (usageKind) return handleUsage(reply, usage, usageKind, new URLSearchParams(queryString));
        const model = path.startsWith('/v1/models/') ? decodeURIComponent(path.slice('/v1/models/'.length)) : undefined;
        if (model !== undefined && simulatedModels.includes(model)) return sendJson(reply, 200, modelInfo(model));
        // Job polls and result downloads (videos, music, video upscale).
        if (handleMediaGet({ request, response, body: null, seed: '', requestId, watch, signingSecret, cache, usage }, path, new URLSearchParams(queryString))) return;
      }
      const route = postRoutes[path];
      if (!route) throw new SimError(404, `no route for ${request.method} ${path}`, null, protocol === 'anthropic' ? 'not_found_error' : 'invalid_request_error');
      if (request.method !== 'POST') throw new SimError(405, `${path} accepts POST only`, null, 'invalid_request_error');
      const raw = await readBody(request);
      let body: unknown = raw;
      if (!route.rawBody) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          throw new SimError(400, 'the request body is not valid JSON', null, 'invalid_request_error');
        }
      }
      const seed = createHash('sha256').update(raw).digest('hex');
      await route.handler({ request, response, body, seed, requestId, watch, signingSecret, cache, usage });
    } catch (caught) {
      const error = caught instanceof SimError ? caught : new SimError(500, `simulator failure: ${(caught as Error)?.message ?? String(caught)}`);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      sendJson(reply, error.status, errorBody(protocol, error, requestId), error.status === 429 ? { 'retry-after': String(error.retryAfterSeconds), 'retry-after-ms': String(error.retryAfterSeconds * 1000) } : {});
    }
  }

  const server = createServer({ noDelay: true, keepAliveTimeout: 30_000 }, (request, response) => {
    void handle(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // exclusive: in a `serve --workers N` worker, each worker's simulator is its own (its jobs
    // live in its memory), not a port the cluster shares among the workers.
    server.listen({ port: options.port ?? 0, host, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  origin = url;
  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // In-flight streams (a slow [[sim:delay]]) and idle keep-alive sockets must not hold the close.
        server.closeAllConnections();
        cache.clear();
        usage.clear();
        payments.close();
      });
      return closing;
    },
  };
}
