// ChatRequest → Gemini `streamGenerateContent?alt=sse` (the gateway always streams upstream),
// on the Gemini API or Vertex AI (settings.ts).
//   system → systemInstruction; messages → contents (contents.ts);
//   tools → one `functionDeclarations` tool (parametersJsonSchema: the schema as given);
//   tool_choice → toolConfig.functionCallingConfig (AUTO, NONE, ANY, ANY + allowedFunctionNames);
//   search models (type `search`) → the `google_search` tool (grounding, citations: grounding.ts);
//   stop, temperature, top_p, the output budget, structured output (responseMimeType
//   application/json + responseJsonSchema), thinking (thinking.ts) → generationConfig.
// Lossy, where Gemini has no slot:
//   - parallel_tool_calls false: Gemini has no switch (it may still call several);
//   - a tool's `strict` flag; the end-user id.
import type { ChatRequest, ToolChoice } from '../../model/chat.js';
import type { UpstreamHttpRequest, UpstreamTarget } from '../types.js';
import { toGeminiContents } from './contents.js';
import { endpointOf } from './settings.js';
import { takesThinkingLevel, thinkingConfigOf } from './thinking.js';

export function buildGeminiBody(request: ChatRequest, target: UpstreamTarget): Record<string, unknown> {
  const body: Record<string, unknown> = {
    contents: toGeminiContents(request.messages, { needsSignatures: takesThinkingLevel(target.model) }),
  };
  const system = request.system.filter((part) => part.text !== '').map((part) => ({ text: part.text }));
  if (system.length > 0) body.systemInstruction = { parts: system };
  const tools: Record<string, unknown>[] = [];
  if (request.tools.length > 0) {
    tools.push({
      functionDeclarations: request.tools.map((tool) => ({
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parametersJsonSchema: { type: 'object', ...tool.parameters },
      })),
    });
    const config = functionCallingConfig(request.toolChoice);
    if (config) body.toolConfig = { functionCallingConfig: config };
  }
  if (target.search) tools.push({ google_search: {} });
  if (tools.length > 0) body.tools = tools;
  body.generationConfig = generationConfig(request, target);
  return body;
}

export function buildGeminiRequest(request: ChatRequest, target: UpstreamTarget): UpstreamHttpRequest {
  const endpoint = endpointOf(target);
  return {
    url: `${endpoint.modelUrl}:streamGenerateContent?alt=sse`,
    headers: { 'content-type': 'application/json', ...endpoint.headers },
    body: buildGeminiBody(request, target),
  };
}

function generationConfig(request: ChatRequest, target: UpstreamTarget): Record<string, unknown> {
  const config: Record<string, unknown> = { maxOutputTokens: target.maxOutputTokens };
  if (request.stop.length > 0) config.stopSequences = request.stop;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  const format = request.responseFormat;
  if (format) {
    config.responseMimeType = 'application/json';
    if (format.type === 'json_schema') config.responseJsonSchema = format.schema;
  }
  const thinking = thinkingConfigOf(request, target);
  if (thinking) config.thinkingConfig = thinking;
  return config;
}

function functionCallingConfig(choice: ToolChoice | undefined): Record<string, unknown> | undefined {
  switch (choice?.type) {
    case undefined:
      return undefined;
    case 'auto':
      return { mode: 'AUTO' };
    case 'none':
      return { mode: 'NONE' };
    case 'required':
      return { mode: 'ANY' };
    case 'tool':
      return { mode: 'ANY', allowedFunctionNames: [choice.name] };
  }
}
