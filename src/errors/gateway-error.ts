// What every layer throws to refuse a request: a catalog code (src/errors/catalog.ts) and the
// message for the client. Status, types and x-should-retry come from the catalog, so a code
// means the same everywhere; the HTTP shell encodes it in the route's dialect
// (src/dialects/*/error.ts), the CLI prints its code and message. Pure: no Koa.
import type { ValidationDetail } from '../validation/zod-details.js';
import { errorCatalog, type ErrorCode } from './catalog.js';

export interface GatewayErrorOptions {
  /** OpenAI's `error.param`: the request field at fault. */
  readonly param?: string | null;
  /** Response headers (Retry-After, retry-after-ms). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The 422 body's pydantic-style `detail` entries. */
  readonly detail?: readonly ValidationDetail[];
  /** `x-should-retry` for a code whose catalog entry says `varies` (the upstream's judgement). */
  readonly retryable?: boolean;
  /** The message on Anthropic-shaped routes where Anthropic words it differently and clients parse it (context length). */
  readonly anthropicMessage?: string;
  /** Only `invalid_request`: the status the body parser or router gave (400, 405, 415). */
  readonly status?: number;
  /** An upstream's failure behind it: the upstream's status (`502`, `timeout`, …), kept in the request log. */
  readonly upstreamStatus?: string;
}

export class GatewayError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: GatewayErrorOptions = {},
  ) {
    super(message);
    this.name = 'GatewayError';
    this.status = options.status ?? errorCatalog[code].status;
  }

  /** OpenAI's `error.type`. */
  get type(): string {
    return errorCatalog[this.code].type;
  }

  /** Anthropic's `error.type`. */
  get anthropicType(): string {
    const entry: { type: string; anthropicType?: string } = errorCatalog[this.code];
    return entry.anthropicType ?? entry.type;
  }

  /** The body's `code`: the catalog code, or null where the catalog says so (500). */
  get bodyCode(): string | null {
    return 'nullCodeInBody' in errorCatalog[this.code] ? null : this.code;
  }

  /** `x-should-retry`, or undefined when none is sent. */
  get retryable(): boolean | undefined {
    const retryable = errorCatalog[this.code].retryable;
    if (retryable === 'varies') return this.options.retryable;
    return retryable ?? undefined;
  }
}
