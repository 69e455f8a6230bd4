// The simulator's schema → instance generator: valid for the schema (checked with zod, which
// produced the schema), deterministic, and exactly the documented values.
import test from 'ava';
import { z } from 'zod';
import { instanceForSchema } from '../../src/sim/schema-instance.js';

test('types, enums, consts, nested objects, arrays: the exact documented values', (t) => {
  const schema = {
    type: 'object',
    properties: {
      s: { type: 'string' },
      n: { type: 'number' },
      i: { type: 'integer' },
      b: { type: 'boolean' },
      z: { type: 'null' },
      e: { type: 'string', enum: ['first', 'second'] },
      c: { const: 42 },
      nested: { type: 'object', properties: { deep: { type: 'array', items: { type: 'integer' } } }, required: ['deep'] },
      optional: { type: 'string' },
      nullable: { type: ['null', 'string'] },
    },
    required: ['s', 'n', 'i', 'b', 'z', 'e', 'c', 'nested', 'nullable', 'undescribed'],
  };
  t.deepEqual(instanceForSchema(schema), { s: 'sim', n: 1, i: 1, b: true, z: null, e: 'first', c: 42, nested: { deep: [1] }, nullable: 'sim', undescribed: 'sim' });
  t.deepEqual(instanceForSchema(schema), instanceForSchema(structuredClone(schema)), 'deterministic');
});

test('anyOf / oneOf take the first branch; allOf merges; a type list skips null', (t) => {
  t.is(instanceForSchema({ anyOf: [{ type: 'integer' }, { type: 'string' }] }), 1);
  t.is(instanceForSchema({ oneOf: [{ type: 'boolean' }, { type: 'string' }] }), true);
  t.deepEqual(
    instanceForSchema({ allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'number' } }, required: ['b'] }] }),
    { a: 'sim', b: 1 },
  );
  t.is(instanceForSchema({ type: ['null', 'number'] }), 1);
  t.is(instanceForSchema({ type: 'null' }), null);
});

test('$ref into $defs and definitions; recursion stops at an empty array or the non-recursive branch', (t) => {
  const tree = {
    type: 'object',
    properties: { root: { $ref: '#/$defs/Node' }, legacy: { $ref: '#/definitions/Leaf' } },
    required: ['root', 'legacy'],
    $defs: { Node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }, required: ['name', 'children'] } },
    definitions: { Leaf: { type: 'integer', minimum: 5 } },
  };
  t.deepEqual(instanceForSchema(tree), { root: { name: 'sim', children: [] }, legacy: 5 });
  const linked = { $ref: '#/$defs/List', $defs: { List: { type: 'object', properties: { next: { anyOf: [{ $ref: '#/$defs/List' }, { type: 'null' }] } }, required: ['next'] } } };
  t.deepEqual(instanceForSchema(linked), { next: null });
  t.deepEqual(instanceForSchema({ type: 'object', properties: { self: { type: 'array', items: { $ref: '#' } } }, required: ['self'] }), { self: [] });
});

test('bounds: numbers move into range, strings fit lengths, formats and patterns, arrays honour min/maxItems and tuples', (t) => {
  t.is(instanceForSchema({ type: 'integer', minimum: 10 }), 10);
  t.is(instanceForSchema({ type: 'number', maximum: -3 }), -3);
  t.is(instanceForSchema({ type: 'integer', exclusiveMinimum: 1 }), 2);
  t.is(instanceForSchema({ type: 'number', exclusiveMinimum: 5, exclusiveMaximum: 6 }), 5.5);
  t.is(instanceForSchema({ type: 'number', multipleOf: 7, minimum: 10 }), 14);
  t.is(instanceForSchema({ type: 'string', minLength: 6 }), 'simmmm');
  t.is(instanceForSchema({ type: 'string', maxLength: 2 }), 'si');
  t.is(instanceForSchema({ type: 'string', format: 'date-time' }), '2025-01-01T00:00:00Z');
  t.is(instanceForSchema({ type: 'string', pattern: '^[0-9]+$' }), '0');
  t.deepEqual(instanceForSchema({ type: 'array', items: { type: 'string' }, minItems: 3, uniqueItems: true }), ['sim', 'sim2', 'sim3']);
  t.deepEqual(instanceForSchema({ type: 'array', items: { type: 'string' }, maxItems: 0 }), []);
  t.deepEqual(instanceForSchema({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }], items: false }), ['sim', true]);
});

test('what zod emits (toJSONSchema, both drafts) is answered with an instance zod accepts', (t) => {
  const Node: z.ZodType = z.object({ label: z.string(), get children() { return z.array(Node); } });
  const schema = z.object({
    title: z.string().min(4).max(40),
    kind: z.enum(['a', 'b']),
    literal: z.literal('fixed'),
    count: z.number().int().min(3).max(9),
    ratio: z.number().gt(0).lt(1),
    email: z.email(),
    id: z.uuid(),
    when: z.iso.datetime(),
    day: z.iso.date(),
    link: z.url(),
    tags: z.array(z.string()).min(2),
    pair: z.tuple([z.string(), z.number()]),
    maybe: z.string().nullable(),
    optional: z.string().optional(),
    choice: z.union([z.object({ x: z.number() }), z.string()]),
    scores: z.record(z.string(), z.number()),
    tree: Node,
  });
  for (const target of ['draft-2020-12', 'draft-7'] as const) {
    const instance = instanceForSchema(z.toJSONSchema(schema, { target }));
    const parsed = schema.safeParse(instance);
    t.true(parsed.success, `${target}: ${JSON.stringify(parsed.error?.issues)}`);
  }
});

test('constraints the Anthropic SDK moved into a description ({enum: [...], minItems: 2}) are honoured; the schema\'s own keys win', (t) => {
  t.is(instanceForSchema({ type: 'string', description: '{enum: ["easy","medium","hard"]}' }), 'easy');
  t.is(instanceForSchema({ type: 'string', description: 'How hard.\n\n{enum: ["a, b: c","d"], pattern: "^x"}' }), 'a, b: c');
  t.deepEqual(instanceForSchema({ type: 'array', items: { type: 'integer', description: '{minimum: 3}' }, description: '{minItems: 2, maxItems: 2}' }), [3, 3]);
  t.is(instanceForSchema({ type: 'integer', minimum: 7, description: '{minimum: 3}' }), 7);
  t.is(instanceForSchema({ type: 'string', description: 'Just text {not constraints}' }), 'sim');
});
