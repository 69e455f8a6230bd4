// /metrics on a listener of its own (metrics.listen): an address the API's clients never reach
// (a private interface, or a port compose does not publish), so that Prometheus can scrape it
// without a token and nothing of the metrics is on the API port. Same Koa shell as the API (request
// ids, errors in the catalog's form, the access line), with the one route; its connections are
// bounded by the same timeouts. Started and stopped by src/http/server.ts.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerServices } from '../services.js';
import { listenFailure } from '../util/listen-failure.js';
import { createApp } from './app.js';
import type { RouteDefinition } from './route-table.js';

export interface MetricsServer {
  readonly url: string;
  /** Stops accepting and closes its connections (a scrape in flight is cut: Prometheus tries again). */
  close(): Promise<void>;
}

export async function startMetricsServer(services: ServerServices, metricsRoutes: readonly RouteDefinition[], listen: { host: string; port: number }): Promise<MetricsServer> {
  const limits = services.config.server;
  const server = http.createServer(
    { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, keepAliveTimeout: limits.keepAliveTimeoutMs },
    createApp(services, metricsRoutes).callback(),
  );
  // A handful of scrapers at most: a small cap keeps a stray client from holding many sockets.
  server.maxConnections = 64;
  try {
    server.listen(listen.port, listen.host);
    await once(server, 'listening');
  } catch (error) {
    throw listenFailure(error, listen.host, listen.port, { port: 'metrics.listen in the config', host: 'metrics.listen in the config' });
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}
