// The tracer the HTTP shell and the pipeline call: one trace per request (its server span),
// with child spans for the hold, each upstream try and the settle. Traces are opt-in
// (observability.otlp): without them every call lands on the no-op objects below, created once
// per process, so a request allocates nothing for tracing. The OpenTelemetry implementation
// (otlp-tracer.ts) is the only module that imports @opentelemetry/*, and it is loaded with a
// dynamic import only when the config turns traces on (openTracer), so a default serve loads
// none of that code (test/observability/tracer-loading.test.ts).
import type { ChatRequest, ChatResult, FinishReason, Usage } from '../model/chat.js';
import type { Config } from '../config/load.js';
import type { Logger } from './logger.js';

/** What the request span is told when the request was answered (the request-context's observation has these fields). */
export interface AnsweredRequest {
  readonly status: number;
  /** The route's pattern ('/v1/files/:id'), or 'unmatched'. */
  readonly route: string;
  readonly key: { readonly id: string; readonly accountId: string } | undefined;
  /** The catalog model, once resolved. */
  readonly model: string | undefined;
  readonly chargedUnits: bigint;
  /** The error the client got (also one sent inside a stream). */
  readonly failure: { readonly code: string } | undefined;
}

/** The provider of an upstream route, as the config names it. */
export interface TracedProvider {
  /** Its name in the config ("openai", "backup"). */
  readonly name: string;
  /** Its kind ("openai", "anthropic", "sim"…): gen_ai.provider.name. */
  readonly kind: string;
}

/** What the upstream answered, as far as it said. */
export interface UpstreamAnswer {
  readonly id?: string;
  readonly model?: string;
  readonly finishReason?: FinishReason;
  readonly usage?: Partial<Usage>;
}

export interface Tracer {
  /** The server span of one request; `traceparent` is the caller's W3C trace context header, if it sent one. */
  startRequest(method: string, path: string, traceparent: string | undefined): RequestTrace;
  /** Exports what is still buffered (a graceful stop). */
  close(): Promise<void>;
}

export interface RequestTrace {
  /** False on the no-op (and for a request the sampler left out): callers build what they would hand over only when true. */
  readonly recording: boolean;
  /** Prompts and completions may be recorded (observability.otlp.capture_content). */
  readonly capturesContent: boolean;
  /**
   * What the request does: `genAi` is the conventions' gen_ai.operation.name ('chat',
   * 'embeddings', 'generate_content'), named on its upstream tries; `gateway` the gateway's own
   * name for it ('chat', 'generateImages', 'speech'…).
   */
  operation(genAi: string, gateway: string): void;
  /** The hold placed before going upstream. */
  hold(): StepSpan;
  /** The settle (or the release of a request that produced nothing). */
  settle(): StepSpan;
  /** One try of one route (route-fallback.ts): the provider, the model asked of it, 1 for the first try. */
  upstreamTry(provider: TracedProvider, upstreamModel: string, attempt: number): UpstreamSpan;
  /** Ends the server span. */
  end(answered: AnsweredRequest): void;
}

export interface StepSpan {
  /** The amount held, or charged at the settle (0.0001 RUB units). */
  amount(units: bigint): void;
  /** What a settle charged for: the tokens billed, and whether the gateway counted them itself. */
  billed(usage: Usage, estimated: boolean): void;
  end(error?: unknown): void;
}

export interface UpstreamSpan {
  /** The output budget sent upstream (gen_ai.request.max_tokens). */
  maxTokens(tokens: number): void;
  answered(answer: UpstreamAnswer): void;
  /** Only called when the trace captures content: the prompt sent (system instructions and messages). */
  input(request: ChatRequest): void;
  /** Only called when the trace captures content: the completion that came back. */
  output(result: ChatResult): void;
  /** Ends the span; a try the route could not serve at all is discarded instead. */
  end(error?: unknown): void;
  discard(): void;
}

const noopStep: StepSpan = {
  amount() {},
  billed() {},
  end() {},
};

const noopUpstream: UpstreamSpan = {
  maxTokens() {},
  answered() {},
  input() {},
  output() {},
  end() {},
  discard() {},
};

/** The trace of a request that is not traced: every call does nothing. */
export const noopRequestTrace: RequestTrace = {
  recording: false,
  capturesContent: false,
  operation() {},
  hold: () => noopStep,
  settle: () => noopStep,
  upstreamTry: () => noopUpstream,
  end() {},
};

/** The tracer of a process without observability.otlp. */
export const noopTracer: Tracer = {
  startRequest: () => noopRequestTrace,
  close: async () => undefined,
};

/**
 * The process's tracer: the no-op unless observability.otlp is set, in which case the
 * OpenTelemetry implementation is imported now (and only now).
 */
export async function openTracer(config: Config, logger: Logger): Promise<Tracer> {
  const otlp = config.observability.otlp;
  if (otlp === undefined) return noopTracer;
  const { OtlpTracer } = await import('./otlp-tracer.js');
  return OtlpTracer.open(otlp, logger);
}
