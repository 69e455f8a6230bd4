// `expand[]` of the simulated Stripe API: ids in an answer replaced by their objects.
import { invalidParameter } from './stripe-errors.js';
import type { WireObject } from './stripe-shop.js';

/**
 * Each path's ids replaced by the objects `lookup` finds (`payment_intent.latest_charge`; in a
 * list `data.payment_intent`). A path through something that is not an expandable id is
 * refused, as Stripe refuses it. The answer is a copy: `object` is left as it was.
 */
export function expandObject(object: WireObject, paths: readonly string[], lookup: (id: string) => WireObject | undefined): WireObject {
  const copy = structuredClone(object);
  for (const path of paths) expandPath(copy, path.split('.'), path, lookup);
  return copy;
}

function expandPath(target: WireObject, segments: readonly string[], path: string, lookup: (id: string) => WireObject | undefined): void {
  const [head, ...rest] = segments;
  if (head === undefined) return;
  if (head === 'data' && Array.isArray(target.data)) {
    for (const item of target.data as WireObject[]) expandPath(item, rest, path, lookup);
    return;
  }
  let value = target[head];
  if (typeof value === 'string') {
    value = lookup(value);
    if (value === undefined) throw invalidParameter('expand', `This property cannot be expanded (${head}).`);
    target[head] = value;
  } else if (value === null) {
    return; // nothing there yet (a session's payment_intent before it is paid): stays null, as in Stripe
  } else if (typeof value !== 'object' || !(head in target)) {
    throw invalidParameter('expand', `This property cannot be expanded (${path}).`);
  }
  expandPath(value as WireObject, rest, path, lookup);
}
