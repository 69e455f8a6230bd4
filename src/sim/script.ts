// Decides WHAT the simulated model answers, independent of the wire: reasoning, redacted
// reasoning, text (with search sources) or tool calls, where the output budget cuts it, which
// stop sequence fires, and the resulting output token count. Both protocol modules render the
// same plan for a stream and for a whole response, which is what keeps their usage identical.
import { createHash } from 'node:crypto';
import type { Faults } from './faults.js';
import { parseFaults, stripMagic } from './faults.js';
import { objectForNamedKeys } from './json-keys.js';
import { redactedThinkingData } from './signatures.js';
import { countTokens, cutToTokens } from './tokens.js';
import { instanceForSchema } from './schema-instance.js';
import { argumentsForSchema } from './tool-arguments.js';
import { fillToTokens, firstChars, seedOf, splitDeltas, splitFixed } from './words.js';

export interface SimTool {
  readonly name: string;
  readonly schema: unknown;
}

/** Structured output asked for: some JSON object, or an instance of a schema. */
export type SimFormat = { readonly type: 'json_object' } | { readonly type: 'json_schema'; readonly schema: unknown };

export type SimToolChoice = { readonly type: 'auto' | 'none' | 'required' } | { readonly type: 'tool'; readonly name: string };

/** What the protocol modules extract from a request: everything the answer depends on. */
export interface SimPrompt {
  /** Text of the last user turn (text parts, magic strings included). */
  readonly userText: string;
  /** System and developer texts (JSON mode reads the keys they name). */
  readonly instructions?: string;
  /** Images in the last user turn. */
  readonly images: number;
  /** Texts of the tool results when the conversation ends with them; null otherwise. */
  readonly toolResults: readonly string[] | null;
  /** Whether the conversation ends with a user turn (tool calls are only made then). */
  readonly endsWithUser: boolean;
  /** Tools the model may call (function tools only). */
  readonly tools: readonly SimTool[];
  readonly toolChoice: SimToolChoice;
  readonly parallelToolCalls: boolean;
  /** Output budget, reasoning included; undefined: unlimited. */
  readonly maxTokens?: number;
  readonly stop: readonly string[];
  /** Reasoning to produce, in tokens (0: none). */
  readonly reasoningTokens: number;
  /** Whether this protocol can show redacted reasoning (Anthropic). */
  readonly canRedact: boolean;
  /** Whether the model cites web sources. */
  readonly search: boolean;
  /** A hash of the request body: ids and filler derive from it. */
  readonly seed: string;
  /** Structured output (response_format / output_config.format); absent: plain text. */
  readonly format?: SimFormat;
}

export interface PlannedToolCall {
  /** 12 hex digits; the protocol adds its prefix (call_ / toolu_). */
  readonly idSuffix: string;
  readonly name: string;
  readonly arguments: string;
  /** The arguments in fragments of about 8 characters, as streamed. */
  readonly fragments: readonly string[];
}

export interface Source {
  readonly url: string;
  readonly title: string;
  readonly snippet: string;
  readonly date: string;
}

export interface PlannedText {
  readonly text: string;
  readonly deltas: readonly string[];
}

export type PlannedFinish = 'end' | 'length' | 'tool_calls' | 'stop_sequence';

export interface AnswerPlan {
  readonly reasoning: PlannedText | null;
  readonly redactedData: string | null;
  readonly text: PlannedText | null;
  readonly toolCalls: readonly PlannedToolCall[];
  readonly sources: readonly Source[];
  readonly finish: PlannedFinish;
  readonly stopSequence: string | null;
  /** Everything generated: reasoning, redacted reasoning, text, tool names and arguments. */
  readonly outputTokens: number;
  /** The reasoning share of outputTokens. */
  readonly reasoningTokens: number;
}

export const defaultAnswerTokens = 20;
const argumentFragmentLength = 8;

function planned(text: string): PlannedText {
  return { text, deltas: splitDeltas(text) };
}

/** The 12-hex id suffix of the index-th thing a request produces. */
export function idSuffix(seed: string, index: number): string {
  return createHash('sha256').update(`${seed}:${index}`).digest('hex').slice(0, 12);
}

function chooseTools(prompt: SimPrompt): SimTool[] {
  if (prompt.tools.length === 0 || prompt.toolChoice.type === 'none' || !prompt.endsWithUser) return [];
  const choice = prompt.toolChoice;
  // A tool forced by name is called even right after tool results, as the vendors do (it is how
  // the gateway gets structured output from an Anthropic model without a native format).
  if (choice.type === 'tool') return prompt.tools.filter((tool) => tool.name === choice.name).slice(0, 1);
  if (prompt.toolResults !== null) {
    // After tool results a model answers; made to call a tool (required / any) it calls the LAST
    // one listed — where the gateway puts its structured-output tool, whose input is the answer.
    return choice.type === 'required' ? prompt.tools.slice(-1) : [];
  }
  return prompt.tools.slice(0, prompt.parallelToolCalls && prompt.tools.length > 1 ? 2 : 1);
}

function sourcesFor(question: string): Source[] {
  const slug = question.toLowerCase().match(/[a-z0-9]+/g)?.slice(0, 4).join('-') || 'query';
  const topic = firstChars(question, 40) || 'the question';
  return [1, 2].map((n) => ({
    url: `https://example.com/sim/${slug}-${n}`,
    title: `Simulated source ${n}: ${topic}`,
    snippet: `Source ${n} says the simulated answer about ${topic} is deterministic.`,
    date: `2025-01-0${n}`,
  }));
}

export function planAnswer(prompt: SimPrompt, faults: Faults, signingSecret: string): AnswerPlan {
  const question = stripMagic(prompt.userText);
  const seed = seedOf(question);
  let budget = prompt.maxTokens ?? Number.POSITIVE_INFINITY;
  let outputTokens = 0;
  let reasoningTokens = 0;

  // Reasoning comes first and spends the budget first, as max_tokens includes it.
  let reasoning: PlannedText | null = null;
  let redactedData: string | null = null;
  if (prompt.reasoningTokens > 0) {
    const allowed = Math.min(prompt.reasoningTokens, budget);
    const text = cutToTokens(fillToTokens(`Considering: ${firstChars(question, 40)}`, prompt.reasoningTokens, seed + 1), allowed);
    if (text.length > 0) {
      reasoning = planned(text);
      reasoningTokens += countTokens(text);
    }
    if (prompt.canRedact && faults.redacted) {
      const data = redactedThinkingData(signingSecret, prompt.seed);
      if (reasoningTokens + countTokens(data) <= budget) {
        redactedData = data;
        reasoningTokens += countTokens(data);
      }
    }
    budget -= reasoningTokens;
    outputTokens += reasoningTokens;
  }

  const tools = chooseTools(prompt);
  if (tools.length > 0) {
    // Tool calls are emitted whole even past max_tokens: a cut JSON would be useless to every client.
    const toolCalls = tools.map((tool, index) => {
      const args = JSON.stringify((isFreeFormObject(tool.schema) ? namedKeys(prompt) : undefined) ?? argumentsForSchema(tool.schema));
      outputTokens += countTokens(tool.name) + countTokens(args);
      return { idSuffix: idSuffix(prompt.seed, index), name: tool.name, arguments: args, fragments: splitFixed(args, argumentFragmentLength) };
    });
    return { reasoning, redactedData, text: null, toolCalls, sources: [], finish: 'tool_calls', stopSequence: null, outputTokens, reasoningTokens };
  }

  if (prompt.format) {
    // Emitted whole, like tool arguments: a JSON cut at max_tokens or a stop sequence is useless to every client.
    const named = prompt.format.type === 'json_object' ? namedKeys(prompt) : undefined;
    const json =
      prompt.format.type === 'json_schema'
        ? JSON.stringify(instanceForSchema(prompt.format.schema))
        : JSON.stringify(named ?? { answer: `Simulated answer to "${firstChars(question, 40)}"` });
    outputTokens += countTokens(json);
    return { reasoning, redactedData, text: planned(json), toolCalls: [], sources: [], finish: 'end', stopSequence: null, outputTokens, reasoningTokens };
  }

  let lead: string;
  if (prompt.toolResults !== null) {
    lead = `Tool results: ${prompt.toolResults.join('; ') || '(empty)'}. `;
  } else {
    lead = `Simulated answer to "${firstChars(question, 40)}": `;
    if (prompt.images > 0) lead += `I see ${prompt.images} image(s). `;
  }
  const full = fillToTokens(lead, faults.tokens ?? defaultAnswerTokens, seed);
  let text = cutToTokens(full, budget);
  let finish: PlannedFinish = text.length < full.length ? 'length' : 'end';
  let stopSequence: string | null = null;
  // The earliest stop sequence in what was generated ends it there (the sequence itself is not returned).
  let earliest = -1;
  for (const candidate of prompt.stop) {
    if (candidate.length === 0) continue;
    const at = text.indexOf(candidate);
    if (at >= 0 && (earliest < 0 || at < earliest)) {
      earliest = at;
      stopSequence = candidate;
    }
  }
  if (stopSequence !== null) {
    text = text.slice(0, earliest);
    finish = 'stop_sequence';
  }
  outputTokens += countTokens(text);
  const sources = prompt.search && text.length > 0 ? sourcesFor(question) : [];
  return { reasoning, redactedData, text: text.length > 0 ? planned(text) : null, toolCalls: [], sources, finish, stopSequence, outputTokens, reasoningTokens };
}

/** The object a JSON-mode answer holds: the keys the instructions and the last user turn name. */
function namedKeys(prompt: SimPrompt): Record<string, unknown> | undefined {
  return objectForNamedKeys([prompt.instructions ?? '', prompt.userText]);
}

/**
 * A tool schema that is any object (no properties described, more not forbidden): how the
 * gateway asks an Anthropic model for json_object output (a forced tool whose input is the
 * answer). A model fills it with what the prompt asks for, so the simulator does too.
 */
function isFreeFormObject(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const record = schema as Record<string, unknown>;
  return record.type === 'object' && record.properties === undefined && record.additionalProperties !== false && record.$ref === undefined && record.anyOf === undefined && record.oneOf === undefined && record.allOf === undefined;
}

/** The switches of a request: magic strings anywhere in its last user turn (text or tool results). */
export function promptFaults(prompt: SimPrompt): Faults {
  return parseFaults(prompt.toolResults === null ? prompt.userText : [prompt.userText, ...prompt.toolResults].join('\n'));
}
