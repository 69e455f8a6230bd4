// Runs the HTTP API and the background chores of a serving process: its heartbeat and the
// sweep of dead processes' holds (hold-owners.ts), releasing expired holds (the last resort)
// and, with them, removing ended cabinet login links and sessions,
// flushing last-used times and, unless disabled, the job runner.
// Connections are bounded: a cap (server.max_connections), a time to send the headers and the
// whole request (slow clients), an idle keep-alive timeout. Stops gracefully within a
// deadline (server.drain_timeout): no new connections, in-flight requests may finish until
// the deadline, then their connections are cut, which ends each through the pipeline's
// client-disconnect path (upstream aborted, what was produced charged, the rest of its hold
// released); then queued writes are flushed. With metrics.listen, /metrics is served on a
// listener of its own (metrics-server.ts) and left out of the API's routes.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopFlushDeadlineMs, type ServerServices } from '../services.js';
import { listenFailure } from '../util/listen-failure.js';
import { createJobRunner } from '../pipeline/job-runner.js';
import { sweepCabinet } from '../process/cabinet-sweep.js';
import { missingLoginSecrets } from '../users/login-secrets.js';
import { missingPaymentSecrets } from '../payments/open-payments.js';
import { sweepPayments } from '../process/payment-sweep.js';
import { startLowBalanceChecks } from '../process/low-balance-sweep.js';
import { ConfigError } from '../config/load.js';
import { decoyPasswordHash } from '../users/password.js';
import { createApp } from './app.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';
import { answerParserRefusals } from './parser-refusals.js';
import { routeTable, type RouteDefinition } from './route-table.js';

/** After the drain deadline cut the connections: how long their settling may take before the process stops anyway. */
const settleGraceMs = 10_000;

export interface RunningServer {
  readonly url: string;
  /** Where /metrics is served when metrics.listen moves it off the API port. */
  readonly metricsUrl: string | undefined;
  readonly server: http.Server;
  stop(): Promise<void>;
}

export async function startServer(
  services: ServerServices,
  options: { host: string; port: number; routes?: readonly RouteDefinition[]; /** Also run a job runner in this process. */ jobRunner?: boolean },
): Promise<RunningServer> {
  // A metrics token named but unusable would leave /metrics without it: refuse to start instead.
  const metricsSettings = services.config.metrics;
  if (metricsSettings.tokenProblem !== undefined) throw new ConfigError('the environment', [metricsSettings.tokenProblem]);
  // Email named but its SMTP URL unset would hide sign-up without a word: refuse to start instead.
  const email = services.config.email;
  if (email !== undefined && email.smtpUrl === undefined) {
    throw new ConfigError('the environment', [
      `email.smtp_url_env names ${email.smtpUrlEnv}, which is not set in this process's environment: set it to the SMTP server's URL (smtp://user:password@host:587), or remove email`,
    ]);
  }
  if (email === undefined) services.logger.info('email is not configured: sign-up, password login and password reset by email are unavailable (docs/configuration.md, "Email")');
  // The decoy hash unknown emails are checked against, made now: else the first unknown address would take two hashes' time.
  else void decoyPasswordHash();
  // So would a login provider without its secret (src/users/login-secrets.ts).
  const loginSecretProblems = [...missingLoginSecrets(services.config), ...missingPaymentSecrets(services.config)];
  if (loginSecretProblems.length > 0) throw new ConfigError('the environment', loginSecretProblems);
  const routes = options.routes ?? routeTable;
  // With metrics.listen, /metrics is served there alone, and the API port no longer has it.
  const metricsListen = metricsSettings.listen;
  const apiRoutes = metricsListen === undefined ? routes : routes.filter((route) => route.path !== '/metrics');
  // Registered before the first request can place a hold carrying this instance's id.
  await services.holdOwner.register();
  services.holdOwner.start();
  services.usageRecords.start();
  const app = createApp(services, apiRoutes);
  const handle = app.callback();
  const limits = services.config.server;
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      // Node measures it until the request is fully received: it never cuts a long (streamed) response.
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // A request without Host is refused by requestContext with the catalog's error (Node's own refusal has no body).
      requireHostHeader: false,
      // How often both are checked (Node's default, 30 s, would let a 20 s limit run to 50 s).
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4))),
    },
    (request, response) => {
      // Handlers in flight are counted to their end, after the response too: a chat request
      // whose client is gone still settles its hold before the process may stop.
      inFlight++;
      if (draining) response.setHeader('connection', 'close');
      void handle(request, response).finally(() => {
        if (--inFlight === 0) for (const resolve of idleWaiters.splice(0)) resolve();
      });
    },
  );
  server.maxConnections = limits.maxConnections;
  // A client's FIN ends only its sending side (a half-close: `socket.end()` right after writing
  // the request, as some clients and scripts do). Node's default takes it for a closed
  // connection: it ends its own side at once, the socket closes and the request in flight is
  // destroyed before its body is read, so the client gets no answer and the log a 500. With
  // this (not in @types/node, but Node's own switch since 0.x) Node answers the requests
  // already received and ends the connection after the last one. A client that closed
  // completely is still found out: the next write gets a reset, which ends a stream through
  // the client-disconnect path as before.
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // Requests the parser refuses (bad framing, too large headers, timeouts) get the catalog's JSON error.
  answerParserRefusals(server, limits, services.logger);
  let inFlight = 0;
  let draining = false;
  const idleWaiters: (() => void)[] = [];
  const handlersDone = () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)));
  try {
    server.listen(options.port, options.host);
    await once(server, 'listening');
  } catch (error) {
    await services.holdOwner.stop({ forget: true }).catch(() => undefined);
    throw listenFailure(error, options.host, options.port, {
      port: '--port, GATEWAY_PORT or server.port in the config',
      host: '--host, GATEWAY_HOST or server.host in the config',
    });
  }
  let metricsServer: MetricsServer | undefined;
  if (metricsListen !== undefined) {
    try {
      metricsServer = await startMetricsServer(services, routes.filter((route) => route.path === '/metrics'), metricsListen);
    } catch (error) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.holdOwner.stop({ forget: true }).catch(() => undefined);
      throw error;
    }
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  // Where this serve answers, for `cabinet link` and a refused second serve: a convenience, so a failure only warns.
  await services.holdOwner.announce(url).catch((error: unknown) => services.logger.warn({ err: error }, 'could not record the address this process serves on'));
  // Payments return the browser here unless cabinet.public_url says otherwise; the simulator learns where its notifications go.
  await services.payments?.payments.start(url).catch((error: unknown) => services.logger.warn({ err: error }, 'the payment providers could not be told where this process serves'));

  const { logger, ledger, apiKeys, config } = services;
  const chores = [
    setInterval(() => {
      ledger.releaseExpired().then(
        (released) => released > 0 && logger.warn({ released }, 'released expired holds'),
        (error) => logger.error({ err: error }, 'hold sweeper failed'),
      );
      sweepCabinet(services);
      sweepPayments(services);
    }, config.holds.sweepIntervalMs),
    setInterval(() => {
      apiKeys.flushLastUsed().catch((error) => logger.error({ err: error }, 'last-used flush failed'));
    }, 30_000),
    startLowBalanceChecks(services),
  ];
  for (const chore of chores) chore.unref();
  const runner = options.jobRunner ? createJobRunner(services) : undefined;
  runner?.start();

  let stopping: Promise<void> | undefined;
  return {
    url,
    metricsUrl: metricsServer?.url,
    server,
    stop() {
      stopping ??= (async () => {
        for (const chore of chores) clearInterval(chore);
        draining = true;
        const metricsClosed = metricsServer?.close();
        // Its steps end by storing their state; those still running at the drain deadline are
        // stopped and their jobs handed to another runner (src/pipeline/job-runner.ts).
        const runnerStopped = runner?.stop({ deadlineMs: config.server.drainTimeoutMs }) ?? Promise.resolve();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // server.close() closes the connections idle now; these close those that become idle later.
        server.closeIdleConnections();
        const idleCloser = setInterval(() => server.closeIdleConnections(), 100);
        let deadline: NodeJS.Timeout | undefined;
        const expired = new Promise<'expired'>((resolve) => (deadline = setTimeout(() => resolve('expired'), config.server.drainTimeoutMs)));
        const drained = await Promise.race([Promise.all([closed, handlersDone(), runnerStopped]).then(() => 'drained' as const), expired]);
        if (drained === 'expired') {
          logger.warn({ in_flight: inFlight, drain_timeout_ms: config.server.drainTimeoutMs }, `drain deadline reached: cutting ${inFlight} request(s) still in flight`);
          server.closeAllConnections(); // each ends through the client-disconnect path and settles
          // Settling is a few database writes; bounded so that a stuck write cannot keep the process alive.
          const settled = await Promise.race([handlersDone().then(() => true), sleep(settleGraceMs, false, { ref: false })]);
          if (!settled) logger.error({ in_flight: inFlight }, 'requests still settling after the drain deadline; their holds are left to the hold sweep');
          const runnerDone = await Promise.race([runnerStopped.then(() => true), sleep(settleGraceMs, false, { ref: false })]);
          if (!runnerDone) logger.error('job runner steps still running after the drain deadline; their leases run out and another runner takes them over');
        }
        clearTimeout(deadline);
        clearInterval(idleCloser);
        await metricsClosed;
        // Every request has ended: its hold is closed (the row goes) unless a settle could not land.
        await services.settles.close(stopFlushDeadlineMs);
        await services.holdOwner.stop({ forget: true });
        await services.close();
      })();
      return stopping;
    },
  };
}
