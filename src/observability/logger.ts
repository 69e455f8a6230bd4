// Structured JSON logs (pino). `serve` logs one line per request to stdout; CLI commands log
// to stderr so that stdout carries only their output. Secrets are never passed to a logger.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, destination: 'stdout' | 'stderr' = 'stdout'): Logger {
  return pino(
    { level, base: { service: 'gateway' }, timestamp: pino.stdTimeFunctions.isoTime, redact: ['key', 'api_key', 'apiKey', 'authorization'] },
    pino.destination({ fd: destination === 'stdout' ? 1 : 2, sync: false }),
  );
}
