// A chat request must fit the model's context window (capabilities.context_window): input plus
// the output budget, as OpenAI counts it. Refused before anything is held, so a request the model
// cannot take costs nothing and never reaches the upstream. The input is the gateway's plain
// estimate (about 4 characters per token, the count /v1/messages/count_tokens answers), so near
// the limit it can differ from the vendor's tokenizer either way. A model without a declared
// window is not checked: the gateway cannot know its limit, and the upstream still refuses.
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';

/** The request does not fit the model's context window. Worded for the client as each vendor words it. */
export class ContextWindowExceededError extends DomainError {
  override readonly catalogCode = 'context_length_exceeded';

  constructor(
    readonly contextWindow: number,
    readonly inputTokens: number,
    /** The client's max_tokens when input plus it is too much; undefined when the input alone is. */
    readonly requestedOutputTokens: number | undefined,
    /** The field of the request's input, for OpenAI's `param` and wording: "messages" or "input" (Responses). */
    readonly inputField: string,
  ) {
    super(
      requestedOutputTokens === undefined
        ? `the input (${inputTokens} tokens) exceeds the context window of ${contextWindow} tokens`
        : `the input (${inputTokens} tokens) plus max_tokens (${requestedOutputTokens}) exceeds the context window of ${contextWindow} tokens`,
    );
    this.name = 'ContextWindowExceededError';
  }

  /** Worded as OpenAI and Anthropic word it: clients (and agents that compact history) parse these messages. */
  override toGatewayError(): GatewayError {
    const { contextWindow, inputTokens, requestedOutputTokens, inputField } = this;
    if (requestedOutputTokens === undefined) {
      return new GatewayError(
        this.catalogCode,
        `This model's maximum context length is ${contextWindow} tokens. However, your ${inputField} resulted in ${inputTokens} tokens. Please reduce the length of the ${inputField}.`,
        { param: inputField, anthropicMessage: `prompt is too long: ${inputTokens} tokens > ${contextWindow} maximum` },
      );
    }
    return new GatewayError(
      this.catalogCode,
      `This model's maximum context length is ${contextWindow} tokens. However, you requested ${inputTokens + requestedOutputTokens} tokens (${inputTokens} in the ${inputField}, ${requestedOutputTokens} in the completion). Please reduce the length of the ${inputField} or completion.`,
      {
        param: inputField,
        anthropicMessage: `input length and \`max_tokens\` exceed context limit: ${inputTokens} + ${requestedOutputTokens} > ${contextWindow}, decrease input length or \`max_tokens\` and try again`,
      },
    );
  }
}

/**
 * The output budget to send upstream: the client's max_tokens when the input plus it fits, else a
 * refusal (as OpenAI does); without one, the model's output cap clamped to the room the input leaves.
 * An input that leaves no room at all is refused.
 */
export function fitContextWindow(
  contextWindow: number | undefined,
  inputTokens: number,
  output: { readonly requested: number | undefined; readonly cap: number },
  inputField: string,
): number {
  const budget = output.requested ?? output.cap;
  if (contextWindow === undefined) return budget;
  const room = contextWindow - inputTokens;
  if (room < 1) throw new ContextWindowExceededError(contextWindow, inputTokens, undefined, inputField);
  if (budget <= room) return budget;
  if (output.requested !== undefined) throw new ContextWindowExceededError(contextWindow, inputTokens, output.requested, inputField);
  return room;
}
