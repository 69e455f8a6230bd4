// Which family a Bedrock model id belongs to, for what Converse lets through to each. Ids come
// bare (`anthropic.claude-sonnet-4-20250514-v1:0`), as cross-region inference profiles
// (`us.anthropic.…`, `eu.…`, `global.…`) or as ARNs that end in either.

/** Claude: thinking, prompt caching (system, tools, messages), the stop sequence it hit. */
export function isClaude(model: string): boolean {
  return model.includes('anthropic.claude');
}

/** Models with Bedrock prompt caching: Claude and Amazon Nova. */
export function takesCachePoints(model: string): boolean {
  return isClaude(model) || model.includes('amazon.nova');
}
