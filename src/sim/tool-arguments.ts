// Arguments for a simulated tool call, derived from the tool's JSON schema by the same
// generator as structured-output answers (schema-instance.ts): they validate against the
// schema (clients that check them keep working) and are the same for the same schema every
// time. A forced output tool (how the gateway asks an Anthropic model for structured output)
// therefore answers with exactly the JSON a native json_schema format gets.
import { instanceForSchema } from './schema-instance.js';

/** The arguments object for a tool: an instance of its schema ({} when that is not an object). */
export function argumentsForSchema(schema: unknown): Record<string, unknown> {
  const value = instanceForSchema(schema ?? { type: 'object' });
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
