// Shared plumbing of the simulator's media endpoints: body decoding (JSON, multipart), the
// non-stream magic strings (status, ttfb, drop, fail-mid), binary answers, and deterministic
// numbers from a hash (xoshiro128** seeded by sha256).
import { createHash } from 'node:crypto';
import { dropConnection, requestIdHeaders, type SimContext } from '../context.js';
import { faultError, invalid, SimError } from '../errors.js';
import { parseFaults } from '../faults.js';
import { multipartBoundary, MultipartError, parseMultipart, type MultipartPart } from './multipart.js';

/** The raw request body of a route registered with `rawBody` (multipart and System One). */
export function rawBodyOf(context: SimContext): Buffer {
  if (!Buffer.isBuffer(context.body)) throw new SimError(500, 'simulator route misconfigured: expected the raw body');
  return context.body;
}

/** The parts of a multipart/form-data request; 400 when the body is not one. */
export function readForm(context: SimContext): MultipartPart[] {
  const boundary = multipartBoundary(context.request.headers['content-type']);
  if (!boundary) throw invalid('expected a multipart/form-data body with a boundary');
  try {
    return parseMultipart(rawBodyOf(context), boundary);
  } catch (error) {
    if (error instanceof MultipartError) throw invalid(`invalid multipart body: ${error.message}`);
    throw error;
  }
}

/**
 * Carries out the magic strings of a non-streaming media request, after validation:
 * [[sim:ttfb=MS]] waits, [[sim:status=N]] fails, [[sim:drop]] cuts the connection (returns
 * false: send nothing), [[sim:fail-mid]] is a 500. True when the answer should be sent.
 */
export async function applyFaults(context: SimContext, text: string): Promise<boolean> {
  const faults = parseFaults(text);
  if (faults.ttfbMs > 0) await context.watch.sleep(faults.ttfbMs);
  if (context.watch.closed) return false;
  if (faults.status !== undefined) throw faultError(faults.status, faults.retryAfterSeconds);
  if (faults.drop) {
    dropConnection(context);
    return false;
  }
  if (faults.failMid) throw faultError(500);
  return true;
}

export function sendBytes(context: SimContext, bytes: Uint8Array, contentType: string, headers: Record<string, string> = {}): void {
  if (context.watch.closed || context.response.headersSent) return;
  context.response.writeHead(200, { 'content-type': contentType, 'content-length': String(bytes.length), ...requestIdHeaders(context.requestId), ...headers });
  context.response.end(bytes);
}

export function sendText(context: SimContext, text: string, contentType: string): void {
  sendBytes(context, Buffer.from(text, 'utf8'), contentType);
}

export function sha256(...parts: (string | Uint8Array)[]): Buffer {
  const hash = createHash('sha256');
  parts.forEach((part, index) => {
    if (index > 0) hash.update('\0');
    hash.update(part);
  });
  return hash.digest();
}

/** A deterministic stream of numbers in [0, 1) seeded by sha256 of the parts (xoshiro128**). */
export function seededRandom(...parts: (string | Uint8Array)[]): () => number {
  const seed = sha256(...parts);
  let a = seed.readUInt32LE(0);
  let b = seed.readUInt32LE(4);
  let c = seed.readUInt32LE(8);
  let d = seed.readUInt32LE(12);
  if ((a | b | c | d) === 0) a = 1;
  return () => {
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result / 4_294_967_296;
  };
}

function rotl(value: number, bits: number): number {
  return (value << bits) | (value >>> (32 - bits));
}

/** A multipart scalar or JSON number as an integer in [min, max]; undefined when absent. */
export function optionalInteger(value: unknown, param: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    throw invalid(`${param}: expected an integer from ${min} to ${max}, got ${JSON.stringify(value)}`, param);
  }
  return number;
}

/** A multipart scalar or JSON number in [min, max]; undefined when absent. */
export function optionalNumber(value: unknown, param: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < min || number > max) {
    throw invalid(`${param}: expected a number from ${min} to ${max}, got ${JSON.stringify(value)}`, param);
  }
  return number;
}

export function optionalString(value: unknown, param: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${param}: expected a string`, param);
  return value;
}

export function optionalEnum<T extends string>(value: unknown, param: string, allowed: readonly T[]): T | undefined {
  const text = optionalString(value, param);
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text)) {
    throw invalid(`Invalid value for '${param}': ${JSON.stringify(text)}. Supported values are: ${allowed.map((item) => `'${item}'`).join(', ')}.`, param);
  }
  return text as T;
}

export function requiredString(value: unknown, param: string): string {
  if (value === undefined || value === null) throw new SimError(400, `Missing required parameter: '${param}'.`, param, undefined, 'missing_required_parameter');
  if (typeof value !== 'string') throw invalid(`${param}: expected a string`, param);
  return value;
}
