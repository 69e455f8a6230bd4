// Calling the admin API in a test: over HTTP with an admin token (or a session's cookie and
// CSRF token), every answer checked against the schema the OpenAPI document publishes for it.
import type { ExecutionContext } from 'ava';
import type { z } from 'zod';
import { adminOperations } from '../../src/admin/openapi.js';

export interface AdminAnswer {
  readonly status: number;
  readonly body: any;
}

export type Credentials = { readonly token: string } | { readonly cookie: string; readonly csrf?: string } | undefined;

export async function admin(url: string, credentials: Credentials, method: string, path: string, body?: unknown): Promise<AdminAnswer> {
  const headers: Record<string, string> = {};
  if (credentials && 'token' in credentials) headers.authorization = `Bearer ${credentials.token}`;
  if (credentials && 'cookie' in credentials) {
    headers.cookie = credentials.cookie;
    if (credentials.csrf !== undefined) headers['x-csrf-token'] = credentials.csrf;
  }
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** The documented answer schema of `method path` (the route table's form, `:id`). */
export function answerSchema(method: string, routePath: string): z.ZodType {
  const operation = adminOperations.find((candidate) => candidate.method === method && candidate.path === routePath);
  if (!operation) throw new Error(`no documented operation ${method} ${routePath}`);
  return operation.success.schema;
}

/**
 * Asserts the answer's status and that its body is what the OpenAPI document says it is
 * (strict schemas: an undocumented field fails). Returns the body.
 */
export function expectAnswer(t: ExecutionContext, answer: AdminAnswer, status: number, method: string, routePath: string): any {
  t.is(answer.status, status, `${method} ${routePath}: ${JSON.stringify(answer.body)}`);
  const parsed = answerSchema(method, routePath).safeParse(answer.body);
  t.true(parsed.success, `${method} ${routePath} answers as documented: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`);
  return answer.body;
}

/** Asserts a refusal: status, catalog code and (for a 422) the field it names. */
export function expectRefusal(t: ExecutionContext, answer: AdminAnswer, status: number, code: string, param?: string | null): void {
  t.is(answer.status, status, JSON.stringify(answer.body));
  t.is(answer.body?.error?.code, code, JSON.stringify(answer.body));
  if (param !== undefined) t.is(answer.body.error.param, param, JSON.stringify(answer.body));
}
