// Discriminated unions whose unknown tag reads like a pydantic enum error.
//
// zod's discriminatedUnion reports an unknown tag as a bare `invalid_union` ("Value error,
// Invalid input" once turned into a 422 detail). Checking the tag first against the list of
// known tags gives `{"type":"enum","loc":[…,"type"],"msg":"Input should be 'text' or 'image_url'"}`
// and only then validates the matching variant (with paths into it, as usual).
import { z } from 'zod';

type Variant = z.ZodObject;

export function taggedUnion<const Key extends string, const Variants extends readonly [Variant, ...Variant[]]>(key: Key, variants: Variants) {
  const tags: string[] = [];
  for (const variant of variants) {
    const tag = variant.shape[key] as z.ZodLiteral | undefined;
    if (!tag || !(tag.values instanceof Set)) throw new Error(`taggedUnion: a variant lacks a literal "${key}"`);
    for (const value of tag.values) tags.push(String(value));
  }
  // The variants' output types are kept; the input side is loose (this is a validator of unknown JSON).
  const union = z.discriminatedUnion(key, variants as unknown as readonly [Variant, ...Variant[]]) as unknown as z.ZodType<z.output<Variants[number]>, any>;
  return z
    .object({ [key]: z.enum(tags as [string, ...string[]]) })
    .loose()
    .pipe(union);
}
