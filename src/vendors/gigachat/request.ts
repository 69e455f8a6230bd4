// ChatRequest → `POST {base}/api/v1/chat/completions` (GigaChat), always streamed. The wire is
// Chat Completions as it was before `tools`:
//   - tools are `functions: [{name, description, parameters}]`; the choice is `function_call`:
//     "auto", "none" or {name} ("required" has no equivalent and is sent as "auto");
//   - an assistant call is `function_call: {name, arguments}` with the arguments as a JSON
//     OBJECT, one call per message (parallel calls become consecutive assistant messages);
//   - a tool's answer is a `function` message naming the function, whose content must be
//     JSON: a text that is not is sent as {"result": "<text>"};
//   - structured output has no field: it is asked for with one more function whose parameters
//     are the schema (`structured_output`), called by name when the client's functions cannot
//     be; the stream parser turns that call back into the answer's text (stream.ts);
//   - no stop sequences or end-user id: they are not sent.
// Images go through GigaChat's file upload, which the gateway does not do: the catalog gives
// its models no vision, so images are refused before they get here.
import type { ChatMessage, ChatRequest, ResponseFormat, ToolChoice, UserContentPart } from '../../model/chat.js';
import type { UpstreamHttpRequest, UpstreamTarget } from '../types.js';
import { joinVersioned } from '../shared/wire.js';
import { argumentsObject, toolNamesById, toolResultText } from '../yandex/messages.js';

type GigachatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; function_call?: { name: string; arguments: unknown } }
  | { role: 'function'; name: string; content: string };

export function buildGigachatRequest(request: ChatRequest, target: UpstreamTarget): UpstreamHttpRequest {
  const body: Record<string, unknown> = { model: target.model, messages: toGigachatMessages(request), stream: true, max_tokens: target.maxOutputTokens };
  const functions = request.tools.map((tool) => ({ name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), parameters: tool.parameters }));
  const outputName = outputFunctionName(request);
  if (outputName !== undefined) {
    functions.push(outputFunction(request.responseFormat!, outputName));
    // Forced when no client function may be called; beside callable ones the model chooses.
    const clientCallable = request.tools.length > 0 && request.toolChoice?.type !== 'none';
    body.function_call = clientCallable ? functionCallOf(request.toolChoice ?? { type: 'auto' }) : { name: outputName };
  } else if (request.tools.length > 0 && request.toolChoice) body.function_call = functionCallOf(request.toolChoice);
  if (functions.length > 0) body.functions = functions;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  return {
    url: joinVersioned(target.baseUrl, 'api/v1', '/chat/completions'),
    headers: { 'content-type': 'application/json', ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}) },
    body,
  };
}

/** The function whose arguments are the structured answer, named apart from the client's; undefined without a format. */
export function outputFunctionName(request: ChatRequest): string | undefined {
  if (request.responseFormat === undefined) return undefined;
  let name = 'structured_output';
  for (let n = 1; request.tools.some((tool) => tool.name === name); n++) name = `structured_output_${n}`;
  return name;
}

function outputFunction(format: ResponseFormat, name: string): { name: string; description: string; parameters: Record<string, unknown> } {
  const description = format.type === 'json_schema' && format.description !== undefined ? `Give your final answer as this function's arguments: ${format.description}` : "Give your final answer as this function's arguments.";
  return { name, description, parameters: format.type === 'json_schema' ? { type: 'object', ...format.schema } : { type: 'object' } };
}

function functionCallOf(choice: ToolChoice): string | { name: string } {
  if (choice.type === 'tool') return { name: choice.name };
  return choice.type === 'none' ? 'none' : 'auto';
}

export function toGigachatMessages(request: ChatRequest): GigachatMessage[] {
  const names = toolNamesById(request.messages);
  const messages: GigachatMessage[] = [];
  if (request.system.length > 0) messages.push({ role: 'system', content: request.system.map((part) => part.text).join('\n\n') });
  for (const message of request.messages) {
    if (message.role === 'user') messages.push(...userMessages(message.content, names));
    else messages.push(...assistantMessages(message.content));
  }
  return messages;
}

function userMessages(content: readonly UserContentPart[], names: ReadonlyMap<string, string>): GigachatMessage[] {
  const messages: GigachatMessage[] = [];
  for (const part of content) {
    if (part.type === 'tool_result') messages.push({ role: 'function', name: names.get(part.toolCallId) ?? part.toolCallId, content: jsonContent(toolResultText(part.content)) });
  }
  const texts = content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  if (texts.length > 0) messages.push({ role: 'user', content: texts.join('\n\n') });
  return messages;
}

function assistantMessages(content: Extract<ChatMessage, { role: 'assistant' }>['content']): GigachatMessage[] {
  const text = content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const calls = content.flatMap((part) => (part.type === 'tool_call' ? [part] : []));
  if (calls.length === 0) return text === '' ? [] : [{ role: 'assistant', content: text }];
  // The text said before the calls rides on the first of them.
  return calls.map((call, position) => ({ role: 'assistant', content: position === 0 ? text : '', function_call: { name: call.name, arguments: argumentsObject(call.arguments) } }));
}

/** A function message's content must be JSON: a JSON text goes as is, any other text wrapped. */
function jsonContent(text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    return JSON.stringify({ result: text });
  }
}
