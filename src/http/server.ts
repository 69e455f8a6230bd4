// Runs the HTTP API and the background chores of a serving process: its heartbeat and the
// sweep of dead processes' holds (hold-owners.ts), releasing expired holds (the last resort), flushing last-used times and, unless disabled, the job runner. Stops gracefully: no new
// connections, in-flight requests finish, queued writes are flushed.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { stopFlushDeadlineMs, type ServerServices } from '../services.js';
import { InfrastructureError } from '../util/infrastructure-error.js';
import { createJobRunner } from '../jobs/runner.js';
import { createApp } from './app.js';
import type { RouteDefinition } from './route-table.js';

export interface RunningServer {
  readonly url: string;
  readonly server: http.Server;
  stop(): Promise<void>;
}

export async function startServer(
  services: ServerServices,
  options: { host: string; port: number; routes?: readonly RouteDefinition[]; /** Also run a job runner in this process. */ jobRunner?: boolean },
): Promise<RunningServer> {
  // Registered before the first request can place a hold carrying this instance's id.
  await services.holdOwner.register();
  services.holdOwner.start();
  const app = createApp(services, options.routes);
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000; // longer than common client/proxy idle timeouts
  server.headersTimeout = 66_000;
  try {
    server.listen(options.port, options.host);
    await once(server, 'listening');
  } catch (error) {
    await services.holdOwner.stop({ forget: true }).catch(() => undefined);
    throw listenFailure(error, options.host, options.port);
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  const { logger, ledger, apiKeys, config } = services;
  const chores = [
    setInterval(() => {
      ledger.releaseExpired().then(
        (released) => released > 0 && logger.warn({ released }, 'released expired holds'),
        (error) => logger.error({ err: error }, 'hold sweeper failed'),
      );
    }, config.holds.sweepIntervalMs),
    setInterval(() => {
      apiKeys.flushLastUsed().catch((error) => logger.error({ err: error }, 'last-used flush failed'));
    }, 30_000),
  ];
  for (const chore of chores) chore.unref();
  const runner = options.jobRunner ? createJobRunner(services) : undefined;
  runner?.start();

  let stopping: Promise<void> | undefined;
  return {
    url,
    server,
    stop() {
      stopping ??= (async () => {
        for (const chore of chores) clearInterval(chore);
        await runner?.stop(); // its steps end by storing their state; leases of unfinished work run out
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await closed;
        // Every request has ended: its hold is closed (the row goes) unless a settle could not land.
        await services.settles.close(stopFlushDeadlineMs);
        await services.holdOwner.stop({ forget: true });
        await services.close();
      })();
      return stopping;
    },
  };
}

/** Why the server cannot listen, in the words of the settings that choose the address. */
function listenFailure(error: unknown, host: string, port: number): unknown {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const otherPort = 'choose another port with --port, GATEWAY_PORT or server.port in the config';
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new InfrastructureError(`cannot listen on ${where}: the port is in use by another process; stop it, or ${otherPort}`, { cause: error });
    case 'EACCES':
      return new InfrastructureError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges); ${otherPort}`, { cause: error });
    case 'EADDRNOTAVAIL':
      return new InfrastructureError(`cannot listen on ${where}: ${host} is not an address of this machine; choose another with --host, GATEWAY_HOST or server.host in the config`, { cause: error });
    default:
      return error;
  }
}
