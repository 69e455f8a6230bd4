// Tolerant readers for upstream JSON. Upstream chunks are untyped; these helpers read one
// field at a time so that a missing or mistyped field degrades to "absent", never a crash.
import { UpstreamError } from '../types.js';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function objectOf(value: unknown): JsonObject | undefined {
  return isObject(value) ? value : undefined;
}

export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function arrayOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A token count: a finite, non-negative number, else 0 (absent, null, garbage). */
export function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** The JSON of one SSE event's data. Malformed JSON is an upstream protocol failure. */
export function parseEventJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new UpstreamError(`the upstream sent an event that is not JSON: ${data.slice(0, 200)}`, 0, false, 'invalid_stream');
  }
}
