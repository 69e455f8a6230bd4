// The example config with a fast job runner, without ava (processes.ts and the chaos runner,
// a plain Node.js program, use it too).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { exampleConfigPath } from './gateway.js';

/** The example config with a runner that looks every 50 ms and short leases; `patch` overrides sections. */
export function fastJobsConfig(patch: Record<string, unknown> = {}): Record<string, any> {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  return {
    ...raw,
    jobs: { tick: '50ms', lease: '5s', deadline: '2m', concurrency: 16 },
    webhooks: { allow_loopback: true, allow_private: false, retry_delays: ['100ms', '200ms', '400ms'], timeout: '2s' },
    ...patch,
  };
}
