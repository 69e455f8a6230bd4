// Who may read GET /metrics (issue 30 item 3). The metrics name every model, route and provider
// and how much each earns: not for the public network, and the image listens on 0.0.0.0. Three
// modes, from the config (metrics.token_env, metrics.listen):
// - a token: `Authorization: Bearer <token>` is required from everyone, compared in constant
//   time (401 metrics_unauthorized otherwise);
// - no token, a listener of its own (metrics.listen): whoever reaches that address may read; the
//   API port no longer serves /metrics (src/http/server.ts leaves the route out there);
// - neither (the default): loopback peers only, and only when no proxy forwarded the request
//   (403 metrics_forbidden otherwise). An install on 127.0.0.1 scrapes as before; an image on
//   0.0.0.0, or a gateway behind a reverse proxy on its own machine, does not leak.
// Built once per process; the work per request happens on /metrics only.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { MetricsConfig } from '../config/load.js';
import { GatewayError } from '../errors/gateway-error.js';
import { normalizedAddress } from '../util/ip-list.js';

export interface MetricsAccess {
  /** Throws the refusal (a catalog error) unless this request may read /metrics. */
  admit(request: IncomingMessage): void;
}

/** Headers a proxy adds: a request carrying one did not come from a scraper on this machine. */
const forwardingHeaders = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const;

const digest = (text: string) => createHash('sha256').update(text).digest();

export function metricsAccess(config: MetricsConfig): MetricsAccess {
  if (config.token !== undefined) {
    // Digests of equal length, so the comparison takes the same time whatever was sent.
    const expected = digest(config.token);
    return {
      admit(request) {
        const header = request.headers.authorization;
        const sent = header !== undefined && /^Bearer /i.test(header) ? header.slice('Bearer '.length).trim() : undefined;
        if (sent === undefined || !timingSafeEqual(digest(sent), expected)) {
          throw new GatewayError('metrics_unauthorized', 'GET /metrics requires the metrics token: Authorization: Bearer <token>.', {
            headers: { 'www-authenticate': 'Bearer realm="metrics"' },
          });
        }
      },
    };
  }
  if (config.listen !== undefined) return { admit() {} };
  return {
    admit(request) {
      const peer = request.socket.remoteAddress === undefined ? '' : normalizedAddress(request.socket.remoteAddress);
      const loopback = peer === '::1' || peer.startsWith('127.');
      if (!loopback || forwardingHeaders.some((name) => request.headers[name] !== undefined)) {
        throw new GatewayError(
          'metrics_forbidden',
          'GET /metrics answers only this machine (a loopback connection, not through a proxy). To scrape it from elsewhere, the operator sets metrics.token_env (a Bearer token) or metrics.listen (a listener of its own).',
        );
      }
    },
  };
}
