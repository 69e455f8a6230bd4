// Structured output on Bedrock: Converse has no response format, so the schema becomes a
// forced tool whose input is the answer (as anthropic/output-tool.ts does for models without
// a native format), and the stream parser turns that toolUse block back into text.
import type { ChatRequest, ResponseFormat } from '../../model/chat.js';
import { outputTool } from '../anthropic/output-tool.js';

const baseName = 'structured_output';

/** The forced output tool's name (never one of the client's), or undefined without a format. */
export function bedrockOutputToolName(request: ChatRequest): string | undefined {
  if (request.responseFormat === undefined) return undefined;
  let name = baseName;
  for (let n = 1; request.tools.some((tool) => tool.name === name); n++) name = `${baseName}_${n}`;
  return name;
}

/** The toolSpec whose input is the answer (Anthropic's description and schema, Converse's shape). */
export function bedrockOutputTool(format: ResponseFormat, name: string): Record<string, unknown> {
  const tool = outputTool(format, name) as { description: string; input_schema: Record<string, unknown> };
  return { name, description: tool.description, inputSchema: { json: tool.input_schema } };
}
