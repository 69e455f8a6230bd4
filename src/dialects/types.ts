// What every client dialect (chat-completions, messages, responses) provides to the pipeline.
// Dialects are pure: no Koa, knex or network. They throw RequestValidationError (422) from
// decodeRequest; everything else about a request (model resolution, money) is the pipeline's.
import type { GatewayError } from '../errors/gateway-error.js';
import type { ChatRequest, ChatResult, StreamPart } from '../model/chat.js';

/** Where, in this dialect's request body, the fields checked against the model live (for 422 `loc`). */
export interface DialectLocations {
  readonly reasoningEffort: readonly (string | number)[];
  readonly maxOutputTokens: readonly (string | number)[];
  readonly tools: readonly (string | number)[];
  readonly messages: readonly (string | number)[];
}

/** Turns stream parts into this dialect's SSE text, statefully, one part at a time. */
export interface StreamEncoder {
  /** SSE text to write for this part ("" when the part produces nothing in this dialect). */
  encode(part: StreamPart): string;
  /** SSE text closing a stream that finished normally (after the finish part), e.g. "data: [DONE]\n\n". */
  end(usage: ChatResult['usage']): string;
  /** SSE text reporting an error after the first byte (the dialect's in-stream error). */
  error(message: string, type: string): string;
}

/** A dialect's error body for a refused request (the HTTP shell sets status and headers). */
export type ErrorEncoder = (error: GatewayError, requestId: string) => Record<string, unknown>;

/** An id an input item refers to, and where (the 422 `loc` when it is unknown). */
export interface ReferencedItem {
  readonly loc: (string | number)[];
  readonly id: string;
}

/**
 * For dialects whose requests may refer to output items of earlier answers by id (Responses
 * `item_reference`): the pipeline keeps the items an answer returned and puts them back in
 * place of the references before the body is decoded.
 */
export interface ItemReferences {
  /** The ids a request body refers to. */
  referencedIds(body: unknown): ReferencedItem[];
  /** The body with each reference whose id is in `items` replaced by that item. */
  substitute(body: unknown, items: ReadonlyMap<string, unknown>): unknown;
  /** What the client reads about an id that names no item kept for its account. */
  unknownItemMessage(id: string, keptMinutes: number): string;
  /** The output items of an answer that later requests may refer to, as the client received them. */
  returnedItems(result: ChatResult, request: ChatRequest): { id: string; item: unknown }[];
}

export interface Dialect {
  readonly name: 'chat-completions' | 'messages' | 'responses' | 'generate-content';
  readonly locations: DialectLocations;
  /**
   * Validates and decodes a request body. `model` is the raw model string as sent (the
   * pipeline resolves it); capabilities are checked later by the pipeline with `locations`.
   */
  decodeRequest(body: unknown): ChatRequest;
  /** The JSON body for a non-streaming client. `requestModel` is the model string the client sent. */
  encodeResult(result: ChatResult, request: ChatRequest): unknown;
  /** A fresh encoder for one streamed response. */
  createStreamEncoder(request: ChatRequest, context: { id: string; created: number }): StreamEncoder;
  /** The JSON body of a refused request, in this dialect's shape. */
  readonly encodeError: ErrorEncoder;
  /** Absent in dialects whose requests cannot refer to earlier output items. */
  readonly itemReferences?: ItemReferences;
}
