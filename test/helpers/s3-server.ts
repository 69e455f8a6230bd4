// A real S3-compatible server for tests (s3rver, from npm), on a free loopback port, with its
// objects in a temporary directory; stopped at the test's end. Tests reach it through the
// gateway's own S3 store (src/storage/s3-blob-store.ts) and the official AWS SDK, as they would
// reach MinIO or AWS S3.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import S3rver from 's3rver';

export interface TestS3Server {
  readonly endpoint: string;
  readonly bucket: string;
  /** s3rver's fixed credentials. */
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** The `storage.blobs` section of a gateway config for this server (credentials from S3_TEST_ACCESS_KEY_ID / S3_TEST_SECRET_ACCESS_KEY). */
  readonly blobsConfig: Record<string, unknown>;
  /** Those two variables, for a config's env. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
  /** Stops answering (connections refused) but keeps the objects, for resume(): a store outage. */
  interrupt(): Promise<void>;
  /** Answers again, on the same port, with the same objects. */
  resume(): Promise<void>;
}

export async function startS3Server(t: ExecutionContext | undefined, options: { port?: number; bucket?: string; prefix?: string } = {}): Promise<TestS3Server> {
  const directory = mkdtempSync(path.join(tmpdir(), 'gateway-s3-'));
  const bucket = options.bucket ?? 'gateway-test';
  const serverOn = (port: number) => new S3rver({ port, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  let server: S3rver | undefined = serverOn(options.port ?? 0);
  const { port } = await server.run();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server?.close();
    server = undefined;
    rmSync(directory, { recursive: true, force: true });
  };
  const interrupt = async () => {
    await server?.close();
    server = undefined;
  };
  const resume = async () => {
    if (server || stopped) return;
    server = serverOn(port);
    await server.run();
  };
  t?.teardown(stop);
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    blobsConfig: {
      kind: 's3',
      endpoint,
      region: 'us-east-1',
      bucket,
      prefix: options.prefix ?? '',
      force_path_style: true,
      access_key_id_env: 'S3_TEST_ACCESS_KEY_ID',
      secret_access_key_env: 'S3_TEST_SECRET_ACCESS_KEY',
    },
    env: { S3_TEST_ACCESS_KEY_ID: 'S3RVER', S3_TEST_SECRET_ACCESS_KEY: 'S3RVER' },
    stop,
    interrupt,
    resume,
  };
}
