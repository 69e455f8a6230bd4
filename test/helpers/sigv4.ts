// An independent AWS Signature Version 4 check (node:crypto only, no AWS code), for the
// requests the Bedrock simulator recorded: recomputes the signature of a request from its
// method, path, signed headers and body with the secret the test configured, and says what is
// wrong with it, if anything. Written from AWS's published SigV4 steps: canonical request,
// string to sign, the date/region/service/aws4_request key chain.
import { createHash, createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface SignedRequest {
  readonly method: string;
  /** The path and query as sent (already URI-encoded once). */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Authorization {
  readonly accessKeyId: string;
  readonly date: string;
  readonly region: string;
  readonly service: string;
  readonly signedHeaders: readonly string[];
  readonly signature: string;
}

const pattern = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

export function parseAuthorization(header: string | undefined): Authorization | undefined {
  const match = header === undefined ? null : pattern.exec(header);
  if (!match) return undefined;
  return { accessKeyId: match[1]!, date: match[2]!, region: match[3]!, service: match[4]!, signedHeaders: match[5]!.split(';'), signature: match[6]! };
}

/** RFC 3986 encoding as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
function encode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();

/** The signature the request should carry, computed from scratch. */
export function expectedSignature(request: SignedRequest, authorization: Authorization, secretAccessKey: string): string {
  const [rawPath = '/', rawQuery = ''] = request.path.split('?', 2);
  // Every service but S3 encodes each path segment once more over the path as sent.
  const canonicalPath = rawPath.split('/').map(encode).join('/');
  const canonicalQuery = rawQuery
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => pair.split('=', 2).map((part) => encode(decodeURIComponent(part ?? ''))).join('='))
    .sort()
    .join('&');
  const headerValue = (name: string) => {
    const value = request.headers[name];
    return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ');
  };
  const canonicalHeaders = authorization.signedHeaders.map((name) => `${name}:${headerValue(name)}\n`).join('');
  const canonicalRequest = [request.method, canonicalPath, canonicalQuery, canonicalHeaders, authorization.signedHeaders.join(';'), sha256(request.body)].join('\n');
  const scope = `${authorization.date}/${authorization.region}/${authorization.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', headerValue('x-amz-date'), scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, authorization.date), authorization.region), authorization.service), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}

/** What is wrong with the request's signature (empty when it is valid for `region` and service bedrock). */
export function sigV4Problems(request: SignedRequest, expected: { accessKeyId: string; secretAccessKey: string; region: string }): string[] {
  const header = request.headers.authorization;
  const authorization = parseAuthorization(Array.isArray(header) ? header[0] : header);
  if (!authorization) return [`no SigV4 Authorization header: ${String(header)}`];
  const problems: string[] = [];
  if (authorization.accessKeyId !== expected.accessKeyId) problems.push(`signed by ${authorization.accessKeyId}`);
  if (authorization.region !== expected.region) problems.push(`signed for region ${authorization.region}`);
  if (authorization.service !== 'bedrock') problems.push(`signed for service ${authorization.service}`);
  for (const name of ['host', 'x-amz-date']) if (!authorization.signedHeaders.includes(name)) problems.push(`${name} is not signed`);
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  if (!amzDate.startsWith(authorization.date)) problems.push(`x-amz-date ${amzDate} is not of the credential's day ${authorization.date}`);
  if (expectedSignature(request, authorization, expected.secretAccessKey) !== authorization.signature) problems.push('the signature does not match');
  return problems;
}
