// Reads a Gemini GenerateContentRequest: validates what the Gemini API itself refuses, counts
// the prompt tokens (tokens.ts's rule: each content and the system instruction 3 tokens of
// framing, text 4 bytes a token, an inline image 85, a function declaration its name,
// description and schema), and reduces it to the SimPrompt the answer is planned from.
import { invalid } from '../../errors.js';
import { isRecord, requireRecord, requireString, type JsonObject } from '../../guards.js';
import type { SimFormat, SimPrompt, SimTool, SimToolChoice } from '../../script.js';
import { countTokens, countToolTokens, imageTokens, messageOverheadTokens } from '../../tokens.js';

export interface ParsedGeminiRequest {
  readonly model: string;
  readonly prompt: SimPrompt;
  readonly promptTokens: number;
  /** Whether the model reasons for this request (thoughts are produced, maybe not shown). */
  readonly thinks: boolean;
  /** thinkingConfig.includeThoughts: the thoughts are shown as `thought: true` parts. */
  readonly includeThoughts: boolean;
  /** Gemini 3 models refuse a current-turn function call without its thought signature. */
  readonly checksSignatures: boolean;
  /** For the implicit prefix cache: JSON and tokens of the head (tools + system), then each content. */
  readonly headJson: string;
  readonly headTokens: number;
  readonly contents: readonly JsonObject[];
  readonly contentTokens: readonly number[];
  /** Each model turn's function calls (name, args JSON, signature), for the signature check. */
  readonly modelCalls: readonly (readonly { name: string; args: string; signature?: string }[])[];
}

const levelTokens: Record<string, number> = { minimal: 16, low: 24, medium: 40, high: 64 };
/** Dynamic thinking (no budget, or -1) thinks this much. */
const dynamicThinkingTokens = 24;

/** Models that think: 2.5 and 3 families, and any name containing `reasoning`. */
export function modelThinks(model: string): boolean {
  return model.includes('reasoning') || model.includes('2.5') || /gemini-[3-9]/.test(model);
}

interface Turn {
  readonly role: 'user' | 'model';
  texts: string[];
  images: number;
  calls: { name: string; args: string; signature?: string }[];
  responses: { name: string; text: string }[];
}

function readParts(parts: unknown, where: string, role: 'user' | 'model', turn: Turn): number {
  if (!Array.isArray(parts) || parts.length === 0) throw invalid(`${where}.parts: must contain at least one part`, `${where}.parts`);
  let tokens = 0;
  parts.forEach((value: unknown, index) => {
    const param = `${where}.parts[${index}]`;
    const part = requireRecord(value, param);
    if (typeof part.text === 'string') {
      if (part.thought !== true) turn.texts.push(part.text);
      tokens += countTokens(part.text);
    } else if (isRecord(part.inlineData) || isRecord(part.fileData)) {
      turn.images++;
      tokens += imageTokens;
    } else if (isRecord(part.functionCall)) {
      if (role !== 'model') throw invalid(`${param}.functionCall: only model turns make function calls`, param);
      const name = requireString(part.functionCall.name, `${param}.functionCall.name`);
      const args = JSON.stringify(part.functionCall.args ?? {});
      turn.calls.push({ name, args, ...(typeof part.thoughtSignature === 'string' ? { signature: part.thoughtSignature } : {}) });
      tokens += countTokens(name) + countTokens(args);
    } else if (isRecord(part.functionResponse)) {
      if (role !== 'user') throw invalid(`${param}.functionResponse: only user turns answer function calls`, param);
      const name = requireString(part.functionResponse.name, `${param}.functionResponse.name`);
      const response = requireRecord(part.functionResponse.response, `${param}.functionResponse.response`);
      const text = typeof response.result === 'string' ? response.result : typeof response.error === 'string' ? response.error : JSON.stringify(response);
      turn.responses.push({ name, text });
      tokens += countTokens(name) + countTokens(JSON.stringify(response));
    } else if (part.thoughtSignature === undefined) {
      throw invalid(`${param}: a part needs one of text, inlineData, fileData, functionCall, functionResponse`, param);
    }
  });
  return tokens;
}

/** A model turn's function calls must be answered, one response each by name, by the next (user) turn. */
function checkFunctionPairing(turns: readonly Turn[]): void {
  turns.forEach((turn, index) => {
    const next = turns[index + 1];
    if (turn.role === 'model' && turn.calls.length > 0 && next) {
      const called = turn.calls.map((call) => call.name).sort().join(',');
      const answered = next.responses.map((response) => response.name).sort().join(',');
      if (called !== answered) {
        throw invalid('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.', 'contents');
      }
    }
    if (turn.role === 'user' && turn.responses.length > 0 && turns[index - 1]?.calls.length === 0) {
      throw invalid('Please ensure that function response turn comes immediately after a function call turn.', 'contents');
    }
  });
}

function readTools(body: JsonObject): { tools: SimTool[]; tokens: number; search: boolean } {
  const tools: SimTool[] = [];
  let tokens = 0;
  let search = false;
  if (body.tools === undefined) return { tools, tokens, search };
  if (!Array.isArray(body.tools)) throw invalid('tools: expected an array', 'tools');
  body.tools.forEach((value: unknown, index) => {
    const tool = requireRecord(value, `tools[${index}]`);
    if (tool.google_search !== undefined || tool.googleSearch !== undefined) search = true;
    if (tool.functionDeclarations === undefined) return;
    if (!Array.isArray(tool.functionDeclarations)) throw invalid(`tools[${index}].functionDeclarations: expected an array`, 'tools');
    tool.functionDeclarations.forEach((declaration: unknown, position) => {
      const where = `tools[${index}].functionDeclarations[${position}]`;
      const record = requireRecord(declaration, where);
      const name = requireString(record.name, `${where}.name`);
      if (!/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(name)) throw invalid(`${where}.name: Invalid function name. Must start with a letter or an underscore, at most 64 characters`, where);
      const schema = record.parametersJsonSchema ?? record.parameters;
      tools.push({ name, schema: schema ?? { type: 'object', properties: {} } });
      tokens += countToolTokens(name, typeof record.description === 'string' ? record.description : undefined, schema);
    });
  });
  return { tools, tokens, search };
}

function readToolChoice(body: JsonObject, tools: readonly SimTool[]): SimToolChoice {
  const config = isRecord(body.toolConfig) && isRecord(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : undefined;
  const mode = config?.mode ?? 'AUTO';
  if (mode === 'AUTO' || mode === 'MODE_UNSPECIFIED' || mode === 'VALIDATED') return { type: 'auto' };
  if (mode === 'NONE') return { type: 'none' };
  if (mode !== 'ANY') throw invalid(`toolConfig.functionCallingConfig.mode: invalid value ${JSON.stringify(mode)}`, 'toolConfig');
  const allowed = Array.isArray(config?.allowedFunctionNames) ? (config.allowedFunctionNames as unknown[]).filter((name): name is string => typeof name === 'string') : [];
  for (const name of allowed) if (!tools.some((tool) => tool.name === name)) throw invalid(`allowedFunctionNames: no function named "${name}" is declared`, 'toolConfig');
  return allowed.length === 1 ? { type: 'tool', name: allowed[0]! } : { type: 'required' };
}

function readFormat(config: JsonObject): SimFormat | undefined {
  if (config.responseMimeType !== 'application/json') return undefined;
  const schema = config.responseJsonSchema ?? config.responseSchema;
  return isRecord(schema) ? { type: 'json_schema', schema } : { type: 'json_object' };
}

function reasoningTokensOf(model: string, config: JsonObject): number {
  if (!modelThinks(model)) return 0;
  const thinking = isRecord(config.thinkingConfig) ? config.thinkingConfig : {};
  if (thinking.thinkingLevel !== undefined) {
    const tokens = typeof thinking.thinkingLevel === 'string' ? levelTokens[thinking.thinkingLevel.toLowerCase()] : undefined;
    if (tokens === undefined) throw invalid(`thinkingConfig.thinkingLevel: invalid value ${JSON.stringify(thinking.thinkingLevel)}`, 'generationConfig');
    if (thinking.thinkingBudget !== undefined) throw invalid('thinking_budget and thinking_level are not supported together.', 'generationConfig');
    return tokens;
  }
  const budget = thinking.thinkingBudget;
  if (budget === undefined || budget === -1) return dynamicThinkingTokens;
  if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 0) throw invalid('thinkingConfig.thinkingBudget: expected an integer >= -1', 'generationConfig');
  return Math.min(budget, 40);
}

export function parseGeminiRequest(body: unknown, model: string, seed: string): ParsedGeminiRequest {
  if (!isRecord(body)) throw invalid('the request body must be a JSON object');
  if (!Array.isArray(body.contents) || body.contents.length === 0) throw invalid('* GenerateContentRequest.contents: contents is not specified', 'contents');
  const { tools, tokens: toolTokens, search } = readTools(body);
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  let systemTokens = 0;
  let instructions = '';
  if (body.systemInstruction !== undefined) {
    const system = requireRecord(body.systemInstruction, 'systemInstruction');
    const turn: Turn = { role: 'user', texts: [], images: 0, calls: [], responses: [] };
    systemTokens = messageOverheadTokens + readParts(system.parts, 'systemInstruction', 'user', turn);
    instructions = turn.texts.join('\n');
  }
  const turns: Turn[] = [];
  const contentTokens: number[] = [];
  (body.contents as unknown[]).forEach((value, index) => {
    const where = `contents[${index}]`;
    const content = requireRecord(value, where);
    const role = content.role ?? 'user';
    if (role !== 'user' && role !== 'model') throw invalid(`${where}.role: Please use a valid role: user, model.`, `${where}.role`);
    let turn = turns.at(-1);
    if (turn?.role !== role) turns.push((turn = { role, texts: [], images: 0, calls: [], responses: [] }));
    contentTokens.push(messageOverheadTokens + readParts(content.parts, where, role, turn));
  });
  checkFunctionPairing(turns);
  const format = readFormat(config);
  const formatTokens = format?.type === 'json_schema' ? countTokens(JSON.stringify(format.schema)) : 0;
  const maxTokens = config.maxOutputTokens;
  if (maxTokens !== undefined && (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)) throw invalid('generationConfig.maxOutputTokens: expected an integer >= 1', 'generationConfig');
  const stop = config.stopSequences ?? [];
  if (!Array.isArray(stop) || stop.length > 5 || !stop.every((item) => typeof item === 'string')) throw invalid('generationConfig.stopSequences: at most 5 strings', 'generationConfig');
  const reasoningTokens = reasoningTokensOf(model, config);
  const thinking = isRecord(config.thinkingConfig) ? config.thinkingConfig : {};
  const last = turns.at(-1)!;
  const lastUser = turns.findLast((turn) => turn.role === 'user');
  const endsWithUser = last.role === 'user';
  const prompt: SimPrompt = {
    userText: lastUser?.texts.join('\n') ?? '',
    instructions,
    images: lastUser?.images ?? 0,
    toolResults: endsWithUser && last.responses.length > 0 ? last.responses.map((response) => response.text) : null,
    endsWithUser,
    tools,
    toolChoice: readToolChoice(body, tools),
    parallelToolCalls: true,
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    stop: stop as string[],
    reasoningTokens,
    canRedact: false,
    search: search || model.includes('search'),
    seed,
    ...(format ? { format } : {}),
  };
  const headTokens = toolTokens + systemTokens;
  return {
    model,
    prompt,
    promptTokens: headTokens + formatTokens + contentTokens.reduce((sum, tokens) => sum + tokens, 0),
    thinks: reasoningTokens > 0,
    includeThoughts: thinking.includeThoughts === true,
    checksSignatures: /gemini-[3-9]/.test(model),
    headJson: JSON.stringify([body.tools ?? null, body.systemInstruction ?? null]),
    headTokens,
    contents: body.contents as JsonObject[],
    contentTokens,
    modelCalls: turns.filter((turn) => turn.role === 'model').map((turn) => turn.calls),
  };
}
