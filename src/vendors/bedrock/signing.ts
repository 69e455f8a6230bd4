// How a Bedrock request is authorized, just before it is sent (Vendor.signRequest, called by
// the chat transport over the serialized body):
//   - with an access key pair (access_key_id_env + secret_access_key_env, and a session token
//     for temporary credentials): AWS Signature Version 4 for service `bedrock` in the
//     provider's region, by the SDK's own signer (@smithy/signature-v4) — authorization,
//     x-amz-date, x-amz-content-sha256, and x-amz-security-token with a session token;
//   - else with a Bedrock API key (api_key_env): `Authorization: Bearer <key>`, which Bedrock
//     takes in place of SigV4;
//   - else nothing can sign: a 401, not retryable (the route is down until configured).
// One signer per upstream and key (it caches the day's signing key). The signer's package is
// loaded by the first signed request: a process whose Bedrock providers have no key pair (the
// default config's) never loads it (docs/performance.md, "Idle memory").
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type { SignatureV4 } from '@smithy/signature-v4';
import type { CredentialSource, SignableRequest } from '../shared/http-transport.js';
import { UpstreamError } from '../types.js';
import { regionOf } from './endpoint.js';

/** SHA-256 (or its HMAC with a key) as the signer wants a hash: update, then an async digest. */
class NodeSha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const key = typeof this.secret === 'string' ? this.secret : ArrayBuffer.isView(this.secret) ? Buffer.from(this.secret.buffer, this.secret.byteOffset, this.secret.byteLength) : Buffer.from(this.secret);
    return createHmac('sha256', key);
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    if (typeof data === 'string') this.hash.update(data, 'utf8');
    else if (ArrayBuffer.isView(data)) this.hash.update(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    else this.hash.update(Buffer.from(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

const signers = new Map<string, SignatureV4>();
const maxSigners = 1_000;
let signerClass: typeof SignatureV4 | undefined;

function signerFor(Signer: typeof SignatureV4, source: CredentialSource, region: string, accessKeyId: string, secretAccessKey: string, sessionToken: string | undefined): SignatureV4 {
  const key = [source.name, region, accessKeyId, secretAccessKey, sessionToken ?? ''].join('\0');
  let signer = signers.get(key);
  if (!signer) {
    signer = new Signer({ service: 'bedrock', region, credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }, sha256: NodeSha256 });
    if (signers.size >= maxSigners) signers.clear();
    signers.set(key, signer);
  }
  return signer;
}

export async function signBedrockRequest(request: SignableRequest, source: CredentialSource): Promise<Record<string, string>> {
  const accessKeyId = source.secrets.access_key_id;
  const secretAccessKey = source.secrets.secret_access_key;
  if (accessKeyId && secretAccessKey) {
    const url = new URL(request.url);
    signerClass ??= (await import('@smithy/signature-v4')).SignatureV4;
    const signer = signerFor(signerClass, source, regionOf(source.settings), accessKeyId, secretAccessKey, source.secrets.session_token);
    const headers = { ...request.headers, host: url.host };
    const signed = await signer.sign({
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: request.body,
    });
    return signed.headers;
  }
  if (source.apiKey) return { authorization: `Bearer ${source.apiKey}` };
  throw new UpstreamError(
    `upstream "${source.name}" has no AWS credentials: set access_key_id_env and secret_access_key_env (or api_key_env for a Bedrock API key)`,
    401,
    false,
    'missing_credentials',
  );
}
