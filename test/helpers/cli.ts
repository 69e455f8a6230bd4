// Runs the real `gateway` binary (the compiled CLI; `npm test` builds first).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { installRoot } from '../../src/config/load.js';
import type { TestDatabase } from './backends.js';
import { exampleConfigPath } from './gateway.js';

export const gatewayBin = path.join(installRoot, 'bin', 'gateway');

/** Environment for CLI runs against a test database, isolated from the operator's data/. */
export function cliEnv(database?: TestDatabase, extra: Record<string, string> = {}): Record<string, string> {
  return {
    GATEWAY_CONFIG: exampleConfigPath,
    GATEWAY_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-cli-')),
    ...(database ? { GATEWAY_DATABASE_URL: database.url } : {}),
    GATEWAY_LOG_LEVEL: 'warn',
    ...extra,
  };
}

export async function runCli(args: string[], env: Record<string, string>) {
  const result = await execa(gatewayBin, args, { env, reject: false, extendEnv: true });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Runs a command with --json and parses stdout (which must be nothing but the JSON). */
export async function runCliJson<T = any>(args: string[], env: Record<string, string>): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  if (result.exitCode !== 0) throw new Error(`gateway ${args.join(' ')} failed (${result.exitCode}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Starts `gateway serve --port 0 --json` and resolves with its URL once it listens. */
export async function startServeProcess(env: Record<string, string>): Promise<{ url: string; process: ResultPromise; stop(): Promise<void> }> {
  const child = execa(gatewayBin, ['serve', '--host', '127.0.0.1', '--port', '0', '--json'], { env, reject: false, extendEnv: true, buffer: false });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line).url);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${output}`)));
  });
  return {
    url,
    process: child,
    async stop() {
      child.kill('SIGTERM');
      await child;
    },
  };
}
