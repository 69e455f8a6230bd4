// Tiny hand-written checks for request bodies: the simulator is a benchmark upstream, so it
// validates only what the real APIs reject and does it without a schema library on the hot path.
import { invalid } from './errors.js';

export type JsonObject = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireRecord(value: unknown, param: string): JsonObject {
  if (!isRecord(value)) throw invalid(`${param}: expected an object`, param);
  return value;
}

export function requireString(value: unknown, param: string): string {
  if (typeof value !== 'string') throw invalid(`${param}: expected a string`, param);
  return value;
}

export function optionalBoolean(value: unknown, param: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalid(`${param}: expected a boolean`, param);
  return value;
}

export function optionalPositiveInteger(value: unknown, param: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalid(`${param}: expected an integer >= 1`, param);
  return value;
}
