// A driver's error that says the database cannot be reached right now (not that a statement is
// wrong): connection refused or reset, the server shutting down or starting, no connection free
// in time, SQLite's file locked past busy_timeout or not openable. The HTTP layer answers them
// with 503 + Retry-After (`database_unavailable`, through to-gateway-error.ts); writes that must
// land (settles, records) retry them. Kept beside the catalog rather than in src/db/: what it
// reads are the drivers' own errors, so the mapping needs nothing of src/db/, whose own errors
// are domain errors above src/errors/.
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  '53300', // too_many_connections
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
]);
const unavailableMessages = [
  'Connection terminated', // node-postgres: the socket closed under a query or during connect
  'connection error and is not queryable', // node-postgres: a client whose socket broke earlier
  'timeout exceeded when trying to connect',
  'Timeout acquiring a connection', // knex: the pool had no connection in time
];

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  const candidate = error as { code?: unknown; name?: unknown; message?: unknown; errors?: unknown; cause?: unknown } | null;
  if (!candidate || typeof candidate !== 'object' || depth > 3) return false;
  if (typeof candidate.code === 'string' && (unavailableCodes.has(candidate.code) || candidate.code.startsWith('08'))) return true;
  if (candidate.name === 'KnexTimeoutError') return true;
  if (typeof candidate.message === 'string' && unavailableMessages.some((text) => (candidate.message as string).includes(text))) return true;
  // AggregateError of a connect to several addresses; a wrapped cause.
  if (Array.isArray(candidate.errors) && candidate.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return candidate.cause !== undefined && isDatabaseUnavailable(candidate.cause, depth + 1);
}
