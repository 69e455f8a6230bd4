// Every request the app makes: same-origin, the session cookie sent by the browser, JSON both
// ways, and the session's CSRF token as `x-csrf-token` on every method that changes state
// (the server refuses a cookie-authenticated POST/PATCH/DELETE without it). Errors come back
// as the gateway's OpenAI-style body and are thrown as ApiError with its code and message.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

let csrfToken: string | undefined;

/** Set from the login answer or GET /cabinet/api/session; cleared on logout. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent as JSON; a FormData as multipart (uploads), its boundary set by the browser. */
  readonly body?: unknown;
  readonly signal?: AbortSignal;
}

/** Headers for a request of this method: the CSRF token unless it is a read. */
export function requestHeaders(method: string, json: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (json) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-csrf-token'] = csrfToken;
  return headers;
}

/** The raw response (for streams); throws ApiError when it is not 2xx. */
export async function send(path: string, options: RequestOptions = {}): Promise<Response> {
  const method = options.method ?? 'GET';
  const form = options.body instanceof FormData;
  const response = await fetch(path, {
    method,
    headers: requestHeaders(method, options.body !== undefined && !form),
    body: options.body === undefined ? undefined : form ? (options.body as FormData) : JSON.stringify(options.body),
    credentials: 'same-origin',
    signal: options.signal,
  });
  if (!response.ok) throw await errorOf(response);
  return response;
}

/** JSON in, JSON out (undefined for 204). */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

async function errorOf(response: Response): Promise<ApiError> {
  let body: { error?: { message?: string; code?: string | null; param?: string | null } } | undefined;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const error = body?.error;
  return new ApiError(response.status, error?.code ?? null, error?.message ?? `${response.status} ${response.statusText}`, error?.param ?? null);
}

/** A query string of the set values only ('' and undefined left out), with its leading `?` when not empty. */
export function queryString(values: Record<string, string | number | undefined | null>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') query.set(name, String(value));
  const text = query.toString();
  return text ? `?${text}` : '';
}

/**
 * A read of something this gateway may not offer: a route it does not have (404, an older or
 * differently configured gateway) is null, so the page leaves that part out; any other failure
 * is thrown as usual.
 */
export async function unlessMissing<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}
