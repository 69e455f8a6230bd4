// The Gemini API request body (`GenerateContentRequest` of models.generateContent /
// streamGenerateContent, and the body of models.countTokens) as @google/genai sends it, as zod
// schemas. Non-strict: unknown fields are ignored. Fields the gateway cannot honour are let
// through the schema as `unknown` and refused by the decoder with their location (request.ts),
// so the refusal names the field rather than reading as a type error.
import { z } from 'zod';

const blob = z.object({ mimeType: z.string().min(1), data: z.string().min(1) });

/** One Part: a oneof of data fields, plus `thought` / `thoughtSignature` next to them. */
export const partSchema = z.object({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  thoughtSignature: z.string().nullish(),
  inlineData: blob.nullish(),
  fileData: z.object({ mimeType: z.string().nullish(), fileUri: z.string().min(1) }).nullish(),
  functionCall: z.object({ id: z.string().nullish(), name: z.string().min(1), args: z.record(z.string(), z.unknown()).nullish() }).nullish(),
  functionResponse: z.object({ id: z.string().nullish(), name: z.string().min(1), response: z.record(z.string(), z.unknown()).nullish() }).nullish(),
  executableCode: z.unknown().optional(),
  codeExecutionResult: z.unknown().optional(),
  toolCall: z.unknown().optional(),
  toolResponse: z.unknown().optional(),
});

export const contentSchema = z.object({
  // `function` is the role older clients gave function responses; absent means user.
  role: z.enum(['user', 'model', 'function']).nullish(),
  parts: z.array(partSchema),
});

const functionDeclaration = z.object({
  name: z.string().min(1),
  description: z.string().nullish(),
  /** The OpenAPI-subset Schema (`type: "OBJECT"`…). */
  parameters: z.record(z.string(), z.unknown()).nullish(),
  /** A JSON Schema, as is. */
  parametersJsonSchema: z.record(z.string(), z.unknown()).nullish(),
});

/** A Tool: function declarations, or one of Google's own tools (refused by the decoder). */
export const toolSchema = z.object({ functionDeclarations: z.array(functionDeclaration).nullish() }).loose();

const toolConfig = z.object({
  functionCallingConfig: z
    .object({
      mode: z.enum(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']).nullish(),
      allowedFunctionNames: z.array(z.string().min(1)).nullish(),
    })
    .nullish(),
});

export const thinkingLevels = ['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH'] as const;

const thinkingConfig = z.object({
  includeThoughts: z.boolean().nullish(),
  /** Tokens; 0 turns thinking off, -1 lets the model decide. */
  thinkingBudget: z.number().int().min(-1).nullish(),
  thinkingLevel: z.enum(thinkingLevels).nullish(),
});

const generationConfig = z.object({
  temperature: z.number().min(0).max(2).nullish(),
  topP: z.number().min(0).max(1).nullish(),
  topK: z.number().nullish(),
  candidateCount: z.number().int().nullish(),
  maxOutputTokens: z.number().int().positive().nullish(),
  stopSequences: z.array(z.string()).max(5).nullish(),
  responseMimeType: z.string().nullish(),
  responseSchema: z.record(z.string(), z.unknown()).nullish(),
  responseJsonSchema: z.record(z.string(), z.unknown()).nullish(),
  responseModalities: z.array(z.string()).nullish(),
  thinkingConfig: thinkingConfig.nullish(),
  responseLogprobs: z.boolean().nullish(),
  logprobs: z.number().nullish(),
  speechConfig: z.unknown().optional(),
  imageConfig: z.unknown().optional(),
});

const requestFields = {
  contents: z.array(contentSchema).min(1),
  systemInstruction: contentSchema.nullish(),
  tools: z.array(toolSchema).nullish(),
  toolConfig: toolConfig.nullish(),
  generationConfig: generationConfig.nullish(),
  cachedContent: z.unknown().optional(),
  // safetySettings, labels, serviceTier: read by nothing (README.md, "Lossy").
};

/**
 * POST …:generateContent / …:streamGenerateContent. `model` is the REST request's own field,
 * which the path binds: the route sets it from the path (`models/{model}`), whatever the body said.
 */
export const generateContentSchema = z.object({ ...requestFields, model: z.string().min(1) });

/**
 * POST …:countTokens: `contents` (what @google/genai sends), or a whole `generateContentRequest`
 * (the REST API's other form, which counts its system instruction and tools too).
 */
export const countTokensSchema = z.object({
  contents: z.array(contentSchema).min(1).nullish(),
  generateContentRequest: z.object({ ...requestFields, model: z.string().nullish() }).nullish(),
  model: z.string().min(1),
});

export type GenerateContentBody = z.output<typeof generateContentSchema>;
export type GeminiContent = z.output<typeof contentSchema>;
export type GeminiPart = z.output<typeof partSchema>;
export type GeminiTool = z.output<typeof toolSchema>;
