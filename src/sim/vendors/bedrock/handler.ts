// The Bedrock runtime under the simulator's `/bedrock` prefix (a provider of kind bedrock
// reaches it with `base_url: <simulator>/bedrock`):
//   POST /model/{modelId}/converse         → the Converse JSON answer
//   POST /model/{modelId}/converse-stream  → the ConverseStream binary event stream
//   GET  /__sim/requests                   → the last requests' method, path, headers, body and
//                                            reported usage, for tests that check the SigV4
//                                            signature and the charge (not AWS's)
// A request without `Authorization: AWS4-HMAC-SHA256 Credential=…/{date}/{region}/bedrock/
// aws4_request, SignedHeaders=…, Signature=…` (or a Bedrock API key's `Bearer …`) is refused
// with a 403, as AWS does; the signature itself is not checked here (the simulator knows no
// secret), the tests recompute it from what was recorded. Faults are the magic strings of
// faults.ts; a model id ending in `-not-ready` answers ModelNotReadyException (429).
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { planAnswer, promptFaults } from '../../script.js';
import { defaultSigningSecret } from '../../signatures.js';
import { ClientWatch, writeStream } from '../../sse-writer.js';
import { readRawBody } from '../prefixed-wire.js';
import type { VendorSimRequest } from '../routes.js';
import { AwsError, sendAwsError } from './aws-errors.js';
import { converseCacheUsage } from './converse-cache.js';
import { renderConverse, renderConverseStream, usageOf } from './converse-render.js';
import { parseConverseRequest } from './converse-request.js';
import { recordRequest, recordedRequests, type RecordedRequest } from './recorder.js';

const maxBodyBytes = 20 * 1024 * 1024;
const authorizationPattern = /^AWS4-HMAC-SHA256 Credential=[A-Za-z0-9]+\/\d{8}\/[a-z0-9-]+\/bedrock\/aws4_request, ?SignedHeaders=[a-z0-9;-]+, ?Signature=[0-9a-f]{64}$/;

let served = 0;

export async function handleBedrock(context: VendorSimRequest): Promise<void> {
  const requestId = createHash('sha256').update(`${process.pid}:${++served}:${Date.now()}`).digest('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12}).*$/, '$1-$2-$3-$4-$5');
  try {
    if (context.request.method === 'GET' && context.path === '/__sim/requests') {
      const text = JSON.stringify({ requests: recordedRequests(context.origin) });
      context.response.writeHead(200, { 'content-type': 'application/json' });
      context.response.end(text);
      return;
    }
    const match = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(context.path);
    if (!match) throw new AwsError(404, `no route for ${context.request.method} ${context.path}`, 'UnknownOperationException');
    if (context.request.method !== 'POST') throw new AwsError(405, `${context.path} accepts POST only`, 'UnknownOperationException');
    const raw = await readBody(context.request);
    const record = recordRequest(context.origin, { method: 'POST', path: context.request.url ?? '', headers: context.request.headers, body: raw.toString('utf8') });
    checkAuthorization(context.request);
    let model: string;
    try {
      model = decodeURIComponent(match[1]!);
    } catch {
      throw new AwsError(400, 'the model identifier is not a valid URL path segment');
    }
    await answer(context, model, match[2] === 'converse-stream', raw, requestId, record);
  } catch (caught) {
    const error = caught instanceof AwsError ? caught : awsErrorOf(caught);
    sendAwsError(context.response, error, requestId);
  }
}

async function answer(context: VendorSimRequest, model: string, stream: boolean, raw: Buffer, requestId: string, record: RecordedRequest): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AwsError(400, 'The request body is not valid JSON.', 'SerializationException');
  }
  const seed = createHash('sha256').update(raw).digest('hex');
  const parsed = parseConverseRequest(body, model, seed);
  const faults = promptFaults(parsed.prompt);
  const watch = new ClientWatch(context.response);
  if (faults.ttfbMs > 0) await watch.sleep(faults.ttfbMs);
  if (watch.closed) return;
  if (faults.status !== undefined) throw new AwsError(faults.status, faultMessage(faults.status));
  if (model.endsWith('-not-ready')) throw new AwsError(429, 'Model is not ready for inference. Wait and try your request again.', 'ModelNotReadyException');
  const plan = planAnswer(parsed.prompt, faults, defaultSigningSecret);
  const cache = converseCacheUsage(context.cache, parsed);
  if (!(stream && faults.noUsage)) record.usage = usageOf(parsed, cache, plan.outputTokens);
  const headers = { 'x-amzn-requestid': requestId };
  if (!stream) {
    if (faults.drop) return void context.response.socket?.destroy();
    if (faults.failMid) throw new AwsError(500, faultMessage(500));
    const text = JSON.stringify(renderConverse(parsed, plan, cache));
    context.response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
    context.response.end(text);
    return;
  }
  const prepared = renderConverseStream(parsed, plan, cache, !faults.noUsage);
  const fault = faults.drop ? 'drop' : faults.failMid ? 'fail-mid' : null;
  await writeStream(context.response, watch, prepared, { delayMs: faults.delayMs, fault }, { ...headers, 'content-type': 'application/vnd.amazon.eventstream' });
}

function checkAuthorization(request: IncomingMessage): void {
  const authorization = request.headers.authorization;
  if (authorization === undefined) throw new AwsError(403, 'Missing Authentication Token', 'MissingAuthenticationTokenException');
  if (/^Bearer \S+$/.test(authorization)) return;
  if (!authorizationPattern.test(authorization)) throw new AwsError(403, `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters for service bedrock.`, 'IncompleteSignatureException');
  if (request.headers['x-amz-date'] === undefined) throw new AwsError(403, "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.", 'IncompleteSignatureException');
}

function faultMessage(status: number): string {
  switch (status) {
    case 429:
      return 'Too many requests, please wait before trying again.';
    case 403:
      return "You don't have access to the model with the specified model ID.";
    case 500:
      return 'The system encountered an unexpected error during processing. Try your request again.';
    case 503:
      return 'Bedrock is unable to process your request.';
    default:
      return `Simulated HTTP ${status}`;
  }
}

/** The simulator's own validation errors (SimError, status 400) and anything unexpected, in AWS's shape. */
function awsErrorOf(caught: unknown): AwsError {
  const status = (caught as { status?: unknown })?.status;
  const message = (caught as Error)?.message ?? String(caught);
  if (typeof status === 'number' && status >= 400 && status < 600) return new AwsError(status, message);
  return new AwsError(500, `simulator failure: ${message}`);
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return readRawBody(request, maxBodyBytes, (max) => new AwsError(413, `request body larger than ${max} bytes`, 'ValidationException'));
}
