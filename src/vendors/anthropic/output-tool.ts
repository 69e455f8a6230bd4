// Structured output on Anthropic upstreams. A model that takes `output_config.format` (catalog
// `structured_outputs: true`) gets the schema natively. Any other model — and every json_object
// request, since Anthropic's native format wants a schema — gets a forced tool whose input
// schema is the requested one: the tool's input IS the answer, and the stream parser turns that
// tool_use block back into a text block (input_json_delta fragments become text deltas, the
// `tool_use` stop a normal stop), so the client sees JSON text, as from OpenAI.
import type { ChatRequest, ResponseFormat } from '../../model/chat.js';
import type { UpstreamTarget } from '../types.js';

const baseName = 'structured_output';

/** Whether this request's format goes up natively as output_config.format. */
export function usesNativeFormat(format: ResponseFormat, target: UpstreamTarget): format is Extract<ResponseFormat, { type: 'json_schema' }> {
  return format.type === 'json_schema' && target.capabilities.structuredOutputs === true;
}

/**
 * The name of the forced output tool for this request, or undefined when there is none (no
 * format, or a native one). Never one of the client's tool names. Called by both the request
 * builder and the stream parser, so it depends on the request alone.
 */
export function outputToolName(request: ChatRequest, target: UpstreamTarget): string | undefined {
  const format = request.responseFormat;
  if (format === undefined || usesNativeFormat(format, target)) return undefined;
  let name = baseName;
  for (let n = 1; request.tools.some((tool) => tool.name === name); n++) name = `${baseName}_${n}`;
  return name;
}

/** The tool definition whose input is the answer. */
export function outputTool(format: ResponseFormat, name: string): Record<string, unknown> {
  const description =
    format.type === 'json_schema' && format.description !== undefined
      ? `Give your final answer as this tool's input: ${format.description}`
      : "Give your final answer as this tool's input.";
  // An object schema is what Anthropic's input_schema must be; json_object takes any object.
  const schema = format.type === 'json_schema' ? { type: 'object', ...format.schema } : { type: 'object' };
  return { name, description, input_schema: schema };
}

/**
 * With the output tool: forced outright when the client's tools cannot be called (none given,
 * or tool_choice none); with client tools the model must call one tool, a client's or the
 * output tool (`any`); a client's named tool stays forced. One call at a time, so the answer
 * is one object.
 */
export function outputToolChoice(request: ChatRequest, name: string): Record<string, unknown> {
  const choice = request.toolChoice;
  if (request.tools.length === 0 || choice?.type === 'none') return { type: 'tool', name, disable_parallel_tool_use: true };
  if (choice?.type === 'tool') return { type: 'tool', name: choice.name, disable_parallel_tool_use: true };
  return { type: 'any', disable_parallel_tool_use: true };
}
