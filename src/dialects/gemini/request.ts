// Decodes a Gemini API request body into the internal ChatRequest (README.md, "Decisions").
//   systemInstruction (text parts) → system; contents: `user` (and the old `function`) turns
//   → user messages, `model` turns → assistant messages, consecutive turns of one side merged;
//   parts: text, inlineData (images, PDFs), functionCall, functionResponse (matched to its call
//   by id, else by name), thought parts (→ reasoning, fragments joined up to their signature);
//   tools[].functionDeclarations (Gemini Schema → JSON Schema); toolConfig → tool choice;
//   generationConfig: output budget, sampling, stop sequences, JSON mode and schema, thinking.
// Anything the gateway cannot honour (cached content, Google's own tools, several candidates,
// logprobs, audio or image output, files by URI) is refused naming its field, never ignored.
import type {
  AssistantContentPart,
  ChatMessage,
  ChatRequest,
  ImagePart,
  ReasoningEffort,
  ReasoningPart,
  ResponseFormat,
  TextPart,
  ToolChoice,
  ToolDefinition,
  UserContentPart,
} from '../../model/chat.js';
import { effortForBudget } from '../../model/reasoning.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { withoutUndefined } from '../shared/objects.js';
import { defaultFormatName } from '../shared/response-format.js';
import { toJsonSchema } from './json-schema.js';
import { countTokensSchema, generateContentSchema, type GeminiContent, type GeminiPart, type GeminiTool, type GenerateContentBody } from './schema.js';

type Loc = (string | number)[];

/** Gemini names models `models/{id}`; the gateway's ids (`openai/chat`) follow that prefix. */
export function modelIdOf(name: string): string {
  return name.startsWith('models/') ? name.slice('models/'.length) : name;
}

/** `stream`: the route's (streamGenerateContent); the body's `model` is the path's (routes/gemini.ts). */
export function decodeGenerateContentRequest(body: unknown, stream: boolean): ChatRequest {
  const input = validate(generateContentSchema, body, 'body');
  return decodeBody(input, ['body'], { model: input.model, stream });
}

/** POST …:countTokens: `contents` alone, or a whole `generateContentRequest`. */
export function decodeCountTokensRequest(body: unknown): ChatRequest {
  const input = validate(countTokensSchema, body, 'body');
  const target = { model: input.model, stream: false };
  if (input.generateContentRequest != null) {
    if (input.contents != null) throw invalid(['body', 'contents'], 'send either contents or generateContentRequest, not both');
    return decodeBody(input.generateContentRequest, ['body', 'generateContentRequest'], target);
  }
  if (input.contents == null) throw invalid(['body', 'contents'], 'Field required: contents or generateContentRequest', undefined, 'missing');
  return decodeBody({ contents: input.contents }, ['body'], target);
}

function decodeBody(input: Omit<GenerateContentBody, 'model'>, at: Loc, target: { model: string; stream: boolean }): ChatRequest {
  if (input.cachedContent != null) {
    throw invalid([...at, 'cachedContent'], 'cachedContent is not supported: send the whole conversation (prompts the upstream caches are billed at the cached price by themselves)', input.cachedContent);
  }
  const config = input.generationConfig ?? {};
  const configLoc = [...at, 'generationConfig'];
  refuseGenerationOptions(config, configLoc);
  const tools = decodeTools(input.tools ?? [], [...at, 'tools']);
  const choice = decodeToolChoice(input.toolConfig?.functionCallingConfig ?? undefined, tools, [...at, 'toolConfig', 'functionCallingConfig']);
  const thinking = config.thinkingConfig ?? undefined;
  const effort = decodeEffort(thinking, [...configLoc, 'thinkingConfig']);
  return withoutUndefined<ChatRequest>({
    model: modelIdOf(target.model),
    system: input.systemInstruction == null ? [] : systemParts(input.systemInstruction, [...at, 'systemInstruction']),
    messages: decodeContents(input.contents, [...at, 'contents']),
    tools: choice.tools,
    toolChoice: choice.toolChoice,
    maxOutputTokens: config.maxOutputTokens ?? undefined,
    temperature: config.temperature ?? undefined,
    topP: config.topP ?? undefined,
    stop: config.stopSequences ?? [],
    reasoningEffort: effort?.effort,
    reasoningEffortIsHint: effort?.hint ? true : undefined,
    stream: target.stream,
    includeUsage: false,
    responseFormat: decodeResponseFormat(config, configLoc),
    showReasoning: thinking?.includeThoughts === true,
  });
}

type GenerationConfig = NonNullable<GenerateContentBody['generationConfig']>;

function refuseGenerationOptions(config: GenerationConfig, loc: Loc): void {
  if (config.candidateCount != null && config.candidateCount !== 1) {
    throw invalid([...loc, 'candidateCount'], 'only one candidate is served: leave candidateCount out or set it to 1', config.candidateCount);
  }
  if (config.responseLogprobs) throw invalid([...loc, 'responseLogprobs'], 'log probabilities are not supported', true);
  if (config.logprobs != null) throw invalid([...loc, 'logprobs'], 'log probabilities are not supported', config.logprobs);
  if (config.speechConfig != null) throw invalid([...loc, 'speechConfig'], 'audio output is not supported: the answer is text', config.speechConfig);
  if (config.imageConfig != null) throw invalid([...loc, 'imageConfig'], 'image output is not supported here: use the images API (POST /v1/images/generations)', config.imageConfig);
  const other = (config.responseModalities ?? []).find((modality) => modality.toUpperCase() !== 'TEXT');
  if (other !== undefined) throw invalid([...loc, 'responseModalities'], `response modality ${other} is not supported: the answer is TEXT`, other);
}

/** responseMimeType application/json: any JSON object, or an instance of responseSchema / responseJsonSchema. */
function decodeResponseFormat(config: GenerationConfig, loc: Loc): ResponseFormat | undefined {
  const mimeType = config.responseMimeType ?? 'text/plain';
  const schema = config.responseJsonSchema ?? undefined;
  const geminiSchema = config.responseSchema ?? undefined;
  if (mimeType !== 'application/json') {
    if (mimeType !== 'text/plain') throw invalid([...loc, 'responseMimeType'], `responseMimeType ${mimeType} is not supported: use text/plain or application/json`, mimeType);
    if (schema !== undefined || geminiSchema !== undefined) {
      const field = schema !== undefined ? 'responseJsonSchema' : 'responseSchema';
      throw invalid([...loc, field], `${field} needs responseMimeType application/json`);
    }
    return undefined;
  }
  if (schema !== undefined && geminiSchema !== undefined) throw invalid([...loc, 'responseJsonSchema'], 'send responseSchema or responseJsonSchema, not both');
  if (schema !== undefined) return { type: 'json_schema', name: defaultFormatName, schema };
  if (geminiSchema !== undefined) return { type: 'json_schema', name: defaultFormatName, schema: toJsonSchema(geminiSchema) };
  return { type: 'json_object' };
}

const levels: Record<string, ReasoningEffort | undefined> = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high', THINKING_LEVEL_UNSPECIFIED: undefined };

/**
 * thinkingBudget 0 → off; -1 (dynamic) → the model's default; N → the effort whose budget
 * covers N, as a hint fitted to the model's closest level (as Anthropic's budget). thinkingLevel
 * names the effort itself and is checked against the model.
 */
function decodeEffort(thinking: GenerationConfig['thinkingConfig'], loc: Loc): { effort: ReasoningEffort; hint: boolean } | undefined {
  if (thinking == null) return undefined;
  const budget = thinking.thinkingBudget ?? undefined;
  const level = thinking.thinkingLevel ?? undefined;
  if (budget !== undefined && level !== undefined) throw invalid([...loc, 'thinkingLevel'], 'send thinkingBudget or thinkingLevel, not both');
  if (level !== undefined) {
    const effort = levels[level];
    return effort === undefined ? undefined : { effort, hint: false };
  }
  if (budget === undefined || budget === -1) return undefined;
  if (budget === 0) return { effort: 'off', hint: false };
  return { effort: effortForBudget(budget), hint: true };
}

/** Google's own tools, refused with what to do instead. */
const serverTools: Record<string, string> = {
  googleSearch: "web search is done by the gateway's search models (type search), which search by themselves: call one without this tool",
  googleSearchRetrieval: "web search is done by the gateway's search models (type search), which search by themselves: call one without this tool",
  codeExecution: 'code execution is not supported',
};

function decodeTools(tools: readonly GeminiTool[], loc: Loc): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  tools.forEach((tool, i) => {
    for (const [key, value] of Object.entries(tool)) {
      if (key === 'functionDeclarations' || value == null) continue;
      throw invalid([...loc, i, key], serverTools[key] ?? `${key} tools are not supported: only functionDeclarations are`, value);
    }
    (tool.functionDeclarations ?? []).forEach((declaration, j) => {
      const at = [...loc, i, 'functionDeclarations', j];
      if (declaration.parameters != null && declaration.parametersJsonSchema != null) throw invalid([...at, 'parametersJsonSchema'], 'send parameters or parametersJsonSchema, not both');
      const parameters = declaration.parametersJsonSchema ?? (declaration.parameters != null ? toJsonSchema(declaration.parameters) : { type: 'object', properties: {} });
      definitions.push(withoutUndefined({ name: declaration.name, description: declaration.description ?? undefined, parameters }));
    });
  });
  return definitions;
}

type CallingConfig = { mode?: string | null; allowedFunctionNames?: string[] | null } | undefined;

/**
 * AUTO and VALIDATED → auto; NONE → none; ANY → required, or that tool when one name is
 * allowed. Several allowed names narrow the tools the model is offered to those.
 */
function decodeToolChoice(config: CallingConfig, tools: ToolDefinition[], loc: Loc): { tools: ToolDefinition[]; toolChoice?: ToolChoice } {
  const names = config?.allowedFunctionNames ?? [];
  names.forEach((name, i) => {
    if (!tools.some((tool) => tool.name === name)) throw invalid([...loc, 'allowedFunctionNames', i], `allowedFunctionNames names '${name}', which is not among the functionDeclarations`, name);
  });
  const mode = config?.mode ?? 'MODE_UNSPECIFIED';
  if (names.length > 0 && mode !== 'ANY' && mode !== 'VALIDATED') throw invalid([...loc, 'allowedFunctionNames'], 'allowedFunctionNames needs mode ANY or VALIDATED');
  const offered = names.length > 0 ? tools.filter((tool) => names.includes(tool.name)) : tools;
  switch (mode) {
    case 'MODE_UNSPECIFIED':
      return { tools };
    case 'AUTO':
    case 'VALIDATED':
      return { tools: offered, toolChoice: { type: 'auto' } };
    case 'NONE':
      return { tools, toolChoice: { type: 'none' } };
    default:
      return { tools: offered, toolChoice: names.length === 1 ? { type: 'tool', name: names[0]! } : { type: 'required' } };
  }
}

function systemParts(content: GeminiContent, loc: Loc): TextPart[] {
  return content.parts.flatMap((part, j): TextPart[] => {
    if (part.text == null || dataFields(part).length > 1) throw invalid([...loc, 'parts', j], 'systemInstruction takes text parts only', part);
    return part.text === '' ? [] : [{ type: 'text', text: part.text }];
  });
}

/** The data fields a part sets (a Part is a oneof: exactly one is expected). */
function dataFields(part: GeminiPart): string[] {
  return Object.entries(part)
    .filter(([key, value]) => value != null && key !== 'thought' && key !== 'thoughtSignature')
    .map(([key]) => key);
}

/** The function calls of the last model turn, for matching the responses of the next user turn. */
interface OpenCall {
  readonly id: string;
  readonly name: string;
  answered: boolean;
}

function decodeContents(contents: readonly GeminiContent[], loc: Loc): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let calls: OpenCall[] = [];
  contents.forEach((content, i) => {
    const at = [...loc, i];
    if (content.role === 'model') {
      const parts = modelParts(content.parts, at, i);
      calls = parts.flatMap((part) => (part.type === 'tool_call' ? [{ id: part.id, name: part.name, answered: false }] : []));
      push(messages, { role: 'assistant', content: parts });
    } else {
      // Responses naming their call's id first: a response without one answers a call none named.
      for (const part of content.parts) {
        const call = part.functionResponse?.id == null ? undefined : calls.find((c) => c.id === part.functionResponse!.id);
        if (call) call.answered = true;
      }
      push(messages, { role: 'user', content: content.parts.flatMap((part, j) => userPart(part, [...at, 'parts', j], calls)) });
    }
  });
  return messages;
}

/** Consecutive turns of one side become one message (Anthropic-kind upstreams require turns to alternate); empty turns are dropped. */
function push(messages: ChatMessage[], message: ChatMessage): void {
  if (message.content.length === 0) return;
  const last = messages.at(-1);
  if (last?.role === message.role) {
    messages[messages.length - 1] = { role: last.role, content: [...last.content, ...message.content] } as ChatMessage;
  } else messages.push(message);
}

/**
 * A model turn's parts. Thought parts are joined until one carries a signature (a stream's
 * fragments, sent back as the SDK's chat history keeps them, become one reasoning block);
 * consecutive text parts are joined too. Function calls without an id get one from their place.
 */
function modelParts(parts: readonly GeminiPart[], loc: Loc, turn: number): AssistantContentPart[] {
  const out: AssistantContentPart[] = [];
  /** Where in `out` the reasoning being joined is, while its signature has not come. */
  let open: number | undefined;
  parts.forEach((part, j) => {
    const at = [...loc, 'parts', j];
    const fields = dataFields(part);
    if (fields.length > 1) throw invalid(at, `a part holds one kind of data; this one has ${fields.join(', ')}`);
    if (part.thought) {
      if (fields.length === 1 && fields[0] !== 'text') throw invalid([...at, 'thought'], 'thought parts hold text');
      const before = open === undefined ? '' : (out[open] as ReasoningPart).text;
      const text = before + (part.text ?? '');
      const joined: ReasoningPart = part.thoughtSignature ? { type: 'reasoning', text, signature: part.thoughtSignature } : { type: 'reasoning', text };
      if (open === undefined) out.push(joined);
      else out[open] = joined;
      open = part.thoughtSignature ? undefined : out.indexOf(joined);
      return;
    }
    open = undefined;
    if (part.text != null) {
      if (part.text === '') return;
      const last = out.at(-1);
      if (last?.type === 'text') out[out.length - 1] = { type: 'text', text: last.text + part.text };
      else out.push({ type: 'text', text: part.text });
      return;
    }
    if (part.functionCall != null) {
      const call = part.functionCall;
      out.push({ type: 'tool_call', id: call.id ?? `call_${turn}_${j}`, name: call.name, arguments: JSON.stringify(call.args ?? {}) });
      return;
    }
    if (fields.length === 0) return; // an empty part (a signature alone): nothing to carry
    throw invalid([...at, fields[0]!], `${fields[0]} parts are not allowed in model turns`);
  });
  return out.filter((part) => part.type !== 'reasoning' || part.text !== '' || part.signature !== undefined);
}

function userPart(part: GeminiPart, loc: Loc, calls: OpenCall[]): UserContentPart[] {
  const fields = dataFields(part);
  if (fields.length > 1) throw invalid(loc, `a part holds one kind of data; this one has ${fields.join(', ')}`);
  if (part.thought) throw invalid([...loc, 'thought'], 'thought parts belong to model turns', true);
  if (part.text != null) return part.text === '' ? [] : [{ type: 'text', text: part.text }];
  if (part.inlineData != null) return [inlineData(part.inlineData, [...loc, 'inlineData'])];
  if (part.fileData != null) return [fileData(part.fileData, [...loc, 'fileData'])];
  if (part.functionResponse != null) return [functionResponse(part.functionResponse, [...loc, 'functionResponse'], calls)];
  if (fields.length === 0) return [];
  const field = fields[0]!;
  if (field === 'functionCall') throw invalid([...loc, field], 'functionCall parts belong to model turns');
  throw invalid([...loc, field], `${field} parts are not supported`);
}

function inlineData(data: { mimeType: string; data: string }, loc: Loc): UserContentPart {
  if (data.mimeType.startsWith('image/')) return { type: 'image', mediaType: data.mimeType, data: data.data };
  if (data.mimeType === 'application/pdf') return { type: 'document', source: { type: 'base64', mediaType: 'application/pdf', data: data.data } };
  throw invalid([...loc, 'mimeType'], `inline data of type ${data.mimeType} is not supported: send images (image/*) or PDFs (application/pdf)`, data.mimeType);
}

/** Only an image at a public http(s) address: the gateway has no access to Google's Files API. */
function fileData(data: { mimeType?: string | null; fileUri: string }, loc: Loc): ImagePart {
  if (/^https?:\/\//i.test(data.fileUri) && (data.mimeType == null || data.mimeType.startsWith('image/'))) {
    return withoutUndefined<ImagePart>({ type: 'image', url: data.fileUri, mediaType: data.mimeType ?? undefined });
  }
  throw invalid([...loc, 'fileUri'], 'files by URI are supported for images at an http(s) address only: send other data inline (inlineData)', data.fileUri);
}

function functionResponse(response: { id?: string | null; name: string; response?: Record<string, unknown> | null }, loc: Loc, calls: OpenCall[]): UserContentPart {
  const call = response.id != null ? calls.find((c) => c.id === response.id) : calls.find((c) => !c.answered && c.name === response.name);
  if (call === undefined && response.id == null) {
    throw invalid([...loc, 'name'], `this functionResponse answers no functionCall '${response.name}' of the model turn before it`, response.name);
  }
  if (call) call.answered = true;
  const value = response.response ?? {};
  const keys = Object.keys(value);
  // {"output": "…"} / {"result": "…"}, as Google's examples write it, is that text; anything else its JSON.
  const only = keys.length === 1 ? value[keys[0]!] : undefined;
  const text = (keys[0] === 'output' || keys[0] === 'result') && typeof only === 'string' ? only : JSON.stringify(value);
  return { type: 'tool_result', toolCallId: response.id ?? call!.id, content: [{ type: 'text', text }], ...(keys.length === 1 && keys[0] === 'error' ? { isError: true } : {}) };
}
