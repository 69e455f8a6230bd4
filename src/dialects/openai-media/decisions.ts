// The body of POST /v1/decisions (System One): a state and named typed questions, validated
// before anything goes upstream.
import { z } from 'zod';

const instructions = z.union([z.string().min(1), z.record(z.string(), z.unknown()), z.array(z.unknown()).min(1)]);

const question = z.discriminatedUnion('type', [
  z.object({ type: z.literal('noul'), instructions, criteria: z.object({ true: z.string(), false: z.string() }).optional() }),
  z.object({
    type: z.literal('choice'),
    instructions,
    criteria: z
      .record(z.string().min(1), z.string().nullable())
      .refine((options) => Object.keys(options).length >= 2, 'a choice needs at least 2 options')
      .refine((options) => Object.keys(options).length <= 255, 'a choice takes at most 255 options'),
  }),
  z.object({ type: z.literal('score'), instructions, criteria: z.array(z.string()).min(2).max(10) }),
]);

export const decisionBody = z.object({
  model: z.string().min(1).optional(),
  state: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]),
  questions: z.record(z.string().min(1), question).refine((questions) => Object.keys(questions).length >= 1, 'at least one question is needed'),
  session_id: z.string().max(200).optional(),
  user: z.string().max(200).optional(),
});
export type DecisionBody = z.output<typeof decisionBody>;
