// Small object helpers for building decoded requests and encoded bodies.

/**
 * A copy of `value` without its undefined properties, so optional fields are absent rather
 * than present-and-undefined (JSON fixtures and deep equality tell the two apart).
 */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
