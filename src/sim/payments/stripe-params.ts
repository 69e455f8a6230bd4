// Reading the simulated Stripe API's parameters as Stripe reads them (stripe-shop.ts): strings,
// integers, URLs and metadata checked with Stripe's error codes, unknown parameters refused,
// and list pages cut from a newest-first list.
import { invalidParameter, StripeSimError } from './stripe-errors.js';
import type { FormObject, FormValue } from './stripe-form.js';
import type { WireObject } from './stripe-shop.js';

export function refuseUnknown(params: FormObject, known: ReadonlySet<string>): void {
  for (const key of Object.keys(params)) {
    if (!known.has(key)) throw new StripeSimError(400, 'invalid_request_error', `Received unknown parameter: ${key}`, 'parameter_unknown', key);
  }
}

export function optionalString(params: FormObject, name: string, max = 5000): string | null {
  const value = params[name];
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') throw invalidParameter(name, `Invalid string: ${name} must be a string`);
  if (value.length > max) throw invalidParameter(name, `Invalid string: ${name} must be at most ${max} characters`);
  return value;
}

export function requiredString(params: FormObject, name: string, max = 5000): string {
  const value = optionalString(params, name, max);
  if (value === null) throw new StripeSimError(400, 'invalid_request_error', `Missing required param: ${name}.`, 'parameter_missing', name);
  return value;
}

export function integerOf(value: FormValue | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^-?[0-9]{1,15}$/.test(value)) throw invalidParameter(name, `Invalid integer: ${String(value)}`, 'parameter_invalid_integer');
  const number = Number(value);
  if (number < min) throw invalidParameter(name, `Invalid ${name}: must be at least ${min}`, 'parameter_invalid_integer');
  return number;
}

export function urlOf(params: FormObject, name: string, required: boolean): string | null {
  const value = required ? requiredString(params, name, 5000) : optionalString(params, name, 5000);
  if (value === null) return null;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw invalidParameter(name, `Not a valid URL: ${name}`, 'url_invalid');
  return value;
}

export function metadataOf(value: FormValue | undefined, name: string): Record<string, string> {
  if (value === undefined || value === '') return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParameter(name, `Invalid object: ${name} must be a hash`, 'parameter_invalid_object');
  const entries = Object.entries(value);
  if (entries.length > 50) throw invalidParameter(name, `Invalid ${name}: at most 50 keys`);
  const metadata: Record<string, string> = {};
  for (const [key, item] of entries) {
    if (typeof item !== 'string' || key.length > 40 || item.length > 500) throw invalidParameter(`${name}[${key}]`, `Invalid ${name}: keys of at most 40 and values of at most 500 characters`);
    metadata[key] = item;
  }
  return metadata;
}

/** Stripe's list pages: newest first, `limit` (1-100, default 10), `starting_after` / `ending_before` an id of the list. */
export function listPage<T extends { id: string }>(newestFirst: readonly T[], params: FormObject, url: string, render: (item: T) => WireObject): WireObject {
  const limit = integerOf(params.limit, 'limit', 1) ?? 10;
  if (limit > 100) throw invalidParameter('limit', 'Invalid limit: must be at most 100', 'parameter_invalid_integer');
  const cursor = (name: string) => {
    const id = params[name];
    if (id === undefined) return undefined;
    const index = newestFirst.findIndex((item) => item.id === id);
    if (typeof id !== 'string' || index < 0) throw invalidParameter(name, `Invalid ${name}: ${String(id)} is not in this list`, 'resource_missing');
    return index;
  };
  const after = cursor('starting_after');
  const before = cursor('ending_before');
  let data: T[];
  let hasMore: boolean;
  if (before !== undefined) {
    const start = Math.max(0, before - limit);
    data = newestFirst.slice(start, before);
    hasMore = start > 0;
  } else {
    const start = after === undefined ? 0 : after + 1;
    data = newestFirst.slice(start, start + limit);
    hasMore = start + limit < newestFirst.length;
  }
  return { object: 'list', data: data.map(render), has_more: hasMore, url };
}
