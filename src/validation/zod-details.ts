// Request validation with zod, reported as FastAPI/pydantic-style 422 `detail` entries
// (the seed specification's contract): loc, msg, type, input, ctx. Unknown fields are
// ignored (schemas are non-strict), as the OpenAI and Anthropic APIs ignore them.
// Pure: used by the HTTP layer and by the dialects alike.
import type { z } from 'zod';

/** One entry of a 422 `detail` array, named as FastAPI/pydantic name them. */
export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** A request that fails validation; the HTTP layer answers 422 with `details`. */
export class RequestValidationError extends Error {
  constructor(readonly details: ValidationDetail[]) {
    super(`${details[0]?.loc.join('.')}: ${details[0]?.msg}`);
    this.name = 'RequestValidationError';
  }
}

export type Location = 'body' | 'query' | 'path';

export function validate<S extends z.ZodType>(schema: S, input: unknown, location: Location): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw new RequestValidationError(result.error.issues.map((issue) => toDetail(issue, location)));
}

/** A single 422 detail for a rule zod cannot express (e.g. a value the model does not support). */
export function invalid(loc: (string | number)[], msg: string, input?: unknown, type = 'value_error'): RequestValidationError {
  return new RequestValidationError([{ loc, msg, type, ...(input === undefined ? {} : { input }) }]);
}

const typeNames: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  number: ['float_type', 'Input should be a valid number'],
  int: ['int_type', 'Input should be a valid integer'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['dict_type', 'Input should be a valid dictionary'],
  array: ['list_type', 'Input should be a valid list'],
};

function quoteList(values: readonly unknown[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : (quoted[0] ?? '');
}

export function toDetail(issue: z.core.$ZodIssue, location: Location): ValidationDetail {
  const loc = [location, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
  const input = (issue as { input?: unknown }).input;
  const detail = (type: string, msg: string, ctx?: Record<string, unknown>): ValidationDetail => ({
    loc,
    msg,
    type,
    ...(input === undefined ? {} : { input }),
    ...(ctx ? { ctx } : {}),
  });
  switch (issue.code) {
    case 'invalid_type': {
      if (input === undefined) return { loc, msg: 'Field required', type: 'missing' };
      const [type, msg] = typeNames[issue.expected] ?? [`${issue.expected}_type`, `Input should be a valid ${issue.expected}`];
      return detail(type, msg);
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return detail('string_too_long', `String should have at most ${max} characters`, { max_length: max });
      if (issue.origin === 'array' || issue.origin === 'set') return detail('too_long', `List should have at most ${max} items`, { max_length: max });
      return issue.inclusive
        ? detail('less_than_equal', `Input should be less than or equal to ${max}`, { le: max })
        : detail('less_than', `Input should be less than ${max}`, { lt: max });
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') {
        return detail('string_too_short', `String should have at least ${min} character${min === 1 ? '' : 's'}`, { min_length: min });
      }
      if (issue.origin === 'array' || issue.origin === 'set') return detail('too_short', `List should have at least ${min} item${min === 1 ? '' : 's'}`, { min_length: min });
      return issue.inclusive
        ? detail('greater_than_equal', `Input should be greater than or equal to ${min}`, { ge: min })
        : detail('greater_than', `Input should be greater than ${min}`, { gt: min });
    }
    case 'invalid_value': {
      // A required enum left out is missing, as pydantic says, not a wrong value.
      if (input === undefined) return { loc, msg: 'Field required', type: 'missing' };
      const expected = quoteList(issue.values);
      return issue.values.length === 1
        ? detail('literal_error', `Input should be ${expected}`, { expected })
        : detail('enum', `Input should be ${expected}`, { expected });
    }
    case 'invalid_format':
      return detail('string_pattern_mismatch', issue.message, 'pattern' in issue && issue.pattern ? { pattern: String(issue.pattern) } : undefined);
    default:
      return detail('value_error', `Value error, ${issue.message}`);
  }
}
