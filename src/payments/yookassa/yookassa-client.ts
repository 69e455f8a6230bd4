// YooKassa's HTTP API (v3): HTTP Basic auth with the shop id and the secret key, JSON both
// ways, an Idempotence-Key on every POST. What an answer means for the caller:
// - 2xx (but 202): the object, checked against its wire schema.
// - 202 ("processing": YooKassa has the request and wants it asked again later, same key),
//   429, 5xx, a network failure, a timeout: a plain Error. Nothing definite happened; the
//   gateway asks again (the sweeper), with the same key.
// - any other 4xx: ProviderRefusedError, definite (a refund of more than is left, an unknown id).
// The secret key is only ever in the Authorization header: never in a message or a log line.
import { Agent, request } from '../../util/http-client.js';
import type { z } from 'zod';
import { ProviderRefusedError } from '../provider.js';
import { wireError } from './yookassa-wire.js';

export interface YookassaClientOptions {
  /** Like https://api.yookassa.ru/v3, no trailing slash. */
  readonly apiUrl: string;
  readonly shopId: string;
  /** A function, so a missing key fails the request that needs it, not the process that opens the adapter. */
  readonly secretKey: () => string;
  /** Per request, for the answer's head and for its body (default 30 s). */
  readonly timeoutMs?: number;
}

/** More than any answer the gateway asks for (a list page of 100 payments is ~200 KB). */
const maxAnswerBytes = 4 * 1024 * 1024;

export class YookassaClient {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 16 });

  constructor(private readonly options: YookassaClientOptions) {}

  /** GET `path` (with its query), parsed by `schema`. */
  get<T>(path: string, schema: z.ZodType<T>): Promise<T> {
    return this.call('GET', path, undefined, undefined, schema);
  }

  /** POST `body` with the Idempotence-Key: the same key is the same operation at YooKassa (for 24 hours). */
  post<T>(path: string, body: unknown, idempotenceKey: string, schema: z.ZodType<T>): Promise<T> {
    return this.call('POST', path, body, idempotenceKey, schema);
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body: unknown, idempotenceKey: string | undefined, schema: z.ZodType<T>): Promise<T> {
    const what = `YooKassa ${method} ${path.split('?')[0]}`;
    const timeout = this.options.timeoutMs ?? 30_000;
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`${this.options.shopId}:${this.options.secretKey()}`).toString('base64')}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotenceKey !== undefined) headers['idempotence-key'] = idempotenceKey;
    let answer;
    try {
      answer = await request(`${this.options.apiUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: this.agent,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
    } catch (error) {
      throw new Error(`${what} could not be reached: ${(error as Error).message}`, { cause: error });
    }
    const text = await readText(answer.body, what);
    const status = answer.statusCode;
    if (status === 202) throw new Error(`${what} is still being processed at YooKassa; it is asked again later with the same key`);
    if (status < 200 || status >= 300) {
      const message = `${what} answered ${status}: ${describeError(text)}`;
      if (status >= 400 && status < 500 && status !== 429) throw new ProviderRefusedError('yookassa', status, message);
      throw new Error(message);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`${what} answered ${status} with a body that is not JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new Error(`${what} answered an object the gateway cannot read: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
    return parsed.data;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

async function readText(body: AsyncIterable<Buffer>, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > maxAnswerBytes) throw new Error(`${what} answered more than ${maxAnswerBytes} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    throw new Error(`${what}: the answer was cut: ${(error as Error).message}`, { cause: error });
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** YooKassa's error body as one line (`invalid_request: Refund amount exceeds … (parameter amount)`), or the start of whatever came. */
function describeError(text: string): string {
  try {
    const parsed = wireError.safeParse(JSON.parse(text));
    if (parsed.success) {
      const { code, description, parameter } = parsed.data;
      return `${code}${description ? `: ${description}` : ''}${parameter ? ` (parameter ${parameter})` : ''}`.slice(0, 500);
    }
  } catch {
    // not JSON: a proxy's page
  }
  return text.slice(0, 200) || '(empty body)';
}
