// Stripe's request encoding, read back (the simulated Stripe API, stripe.ts): bodies are
// application/x-www-form-urlencoded and GET parameters a query string, both with bracket
// notation for nesting, as the official libraries write them:
//   line_items[0][price_data][unit_amount]=541&metadata[payment_id]=pay_1&expand[0]=payment_intent
// Numbered keys (and `[]`) make arrays; every leaf is a string, as on the wire.

export type FormValue = string | FormValue[] | FormObject;
export interface FormObject {
  [key: string]: FormValue;
}

/** A parameter the decoder cannot place: answered as Stripe's 400 invalid_request_error. */
export class FormError extends Error {
  constructor(
    message: string,
    readonly param: string,
  ) {
    super(message);
    this.name = 'FormError';
  }
}

/** Names that would reach an object's prototype: refused rather than nested. */
const forbiddenSegments = new Set(['__proto__', 'prototype', 'constructor']);

/** `a[b][0][]` → ['a', 'b', '0', '']; undefined when the brackets do not close. */
export function keySegments(key: string): string[] | undefined {
  const open = key.indexOf('[');
  if (open < 0) return [key];
  const segments = [key.slice(0, open)];
  let rest = key.slice(open);
  while (rest.length > 0) {
    const match = /^\[([^[\]]*)\]/.exec(rest);
    if (!match) return undefined;
    segments.push(match[1]!);
    rest = rest.slice(match[0].length);
  }
  return segments;
}

type Node = Map<string, Node | string>;

/** The parameters of a form body or query string, nested. */
export function decodeStripeForm(encoded: string | URLSearchParams): FormObject {
  const parameters = typeof encoded === 'string' ? new URLSearchParams(encoded) : encoded;
  const root: Node = new Map();
  for (const [key, value] of parameters) {
    const segments = keySegments(key);
    if (!segments || segments[0] === '') throw new FormError(`Invalid parameter name: ${key}`, key);
    if (segments.some((segment) => forbiddenSegments.has(segment))) throw new FormError(`Invalid parameter name: ${key}`, key);
    let node = root;
    for (let index = 0; index < segments.length; index++) {
      let segment = segments[index]!;
      if (segment === '') segment = String(node.size); // `[]`: the next element
      const last = index === segments.length - 1;
      const existing = node.get(segment);
      if (last) {
        if (existing !== undefined) throw new FormError(`Received both a value and another value for ${key}`, key);
        node.set(segment, value);
      } else if (existing === undefined) {
        const child: Node = new Map();
        node.set(segment, child);
        node = child;
      } else if (typeof existing === 'string') {
        throw new FormError(`Invalid hash or array for ${key}: it was also given as a value`, key);
      } else {
        node = existing;
      }
    }
  }
  return toObject(root) as FormObject;
}

/** Maps whose keys are 0..n-1 become arrays, in index order; others plain (null-prototype) objects. */
function toObject(node: Node): FormObject | FormValue[] {
  const keys = [...node.keys()];
  const isArray = keys.length > 0 && keys.every((key) => /^(0|[1-9][0-9]{0,3})$/.test(key)) && keys.map(Number).sort((a, b) => a - b).every((key, index) => key === index);
  const convert = (value: Node | string): FormValue => (typeof value === 'string' ? value : toObject(value));
  if (isArray) return keys.map(Number).sort((a, b) => a - b).map((key) => convert(node.get(String(key))!));
  const object: FormObject = Object.create(null) as FormObject;
  for (const [key, value] of node) object[key] = convert(value);
  return object;
}
