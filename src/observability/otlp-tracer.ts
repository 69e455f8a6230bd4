// The OpenTelemetry implementation of the tracer (tracer.ts), exported over OTLP/HTTP. The only
// module that imports @opentelemetry/*; tracer.ts imports it dynamically, only when
// observability.otlp is set. Spans follow the OpenTelemetry conventions:
//   - the request: a SERVER span "POST /v1/chat/completions" (http.* attributes), with the
//     gateway's own: request id, account, key, catalog model, charge (gateway.*);
//   - each upstream try: a CLIENT span "chat <upstream model>" carrying the GenAI attributes
//     (gen_ai.operation.name, gen_ai.provider.name, gen_ai.request.model, gen_ai.response.*,
//     gen_ai.usage.*). Only these carry gen_ai.*: a backend that sums the tokens of GenAI spans
//     counts each model call once;
//   - the hold and the settle: INTERNAL spans "gateway.hold", "gateway.settle" with the amounts.
// Prompts and completions are recorded on the try spans only with capture_content.
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer as ApiTracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { formatRub } from '../util/money.js';
import { toGatewayError } from '../errors/to-gateway-error.js';
import type { OtlpConfig } from '../config/load.js';
import type { ChatRequest, ChatResult, Usage } from '../model/chat.js';
import { inputMessages, outputMessages, systemInstructions } from './gen-ai-content.js';
import type { Logger } from './logger.js';
import type { AnsweredRequest, RequestTrace, StepSpan, Tracer, TracedProvider, UpstreamAnswer, UpstreamSpan } from './tracer.js';
import { noopRequestTrace } from './tracer.js';
import { upstreamStatusOf } from './upstream-status.js';

const propagator = new W3CTraceContextPropagator();

/** error.type of a failure: the upstream status label (as in the log and metrics), or why the gateway stopped the call. */
function errorType(error: unknown): string {
  // The client's disconnect aborts the upstream call (pipeline/sink.ts ClientGoneError), named here without importing the pipeline.
  if (error instanceof Error && error.name === 'ClientGoneError') return 'client_gone';
  return upstreamStatusOf(error);
}

function fail(span: Span, type: string): void {
  span.setAttribute('error.type', type);
  // Only the type: an upstream's message may echo what it was sent.
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

function usageAttributes(span: Span, prefix: string, usage: Partial<Usage>): void {
  if (usage.inputTokens !== undefined) span.setAttribute(`${prefix}.input_tokens`, usage.inputTokens);
  if (usage.outputTokens !== undefined) span.setAttribute(`${prefix}.output_tokens`, usage.outputTokens);
  if (usage.cachedInputTokens) span.setAttribute(`${prefix}.cache_read.input_tokens`, usage.cachedInputTokens);
  if (usage.cacheWriteInputTokens) span.setAttribute(`${prefix}.cache_creation.input_tokens`, usage.cacheWriteInputTokens);
  if (usage.reasoningTokens) span.setAttribute(`${prefix}.reasoning.output_tokens`, usage.reasoningTokens);
}

class OtlpStepSpan implements StepSpan {
  constructor(private readonly span: Span) {}
  amount(units: bigint): void {
    this.span.setAttribute('gateway.amount_rub', formatRub(units));
  }
  billed(usage: Usage, estimated: boolean): void {
    usageAttributes(this.span, 'gateway.billed', usage);
    this.span.setAttribute('gateway.billed.estimated', estimated);
  }
  end(error?: unknown): void {
    // The catalog's code, as the client got it (insufficient_balance, key_budget_exceeded, database_unavailable…).
    if (error !== undefined) fail(this.span, toGatewayError(error, 'http')?.code ?? 'internal_error');
    this.span.end();
  }
}

class OtlpUpstreamSpan implements UpstreamSpan {
  constructor(private readonly span: Span) {}
  maxTokens(tokens: number): void {
    this.span.setAttribute('gen_ai.request.max_tokens', tokens);
  }
  answered(answer: UpstreamAnswer): void {
    if (answer.id) this.span.setAttribute('gen_ai.response.id', answer.id);
    if (answer.model) this.span.setAttribute('gen_ai.response.model', answer.model);
    if (answer.finishReason) this.span.setAttribute('gen_ai.response.finish_reasons', [answer.finishReason]);
    if (answer.usage) usageAttributes(this.span, 'gen_ai.usage', answer.usage);
  }
  input(request: ChatRequest): void {
    if (request.system.length > 0) this.span.setAttribute('gen_ai.system_instructions', systemInstructions(request.system));
    this.span.setAttribute('gen_ai.input.messages', inputMessages(request));
  }
  output(result: ChatResult): void {
    this.span.setAttribute('gen_ai.output.messages', outputMessages(result));
  }
  end(error?: unknown): void {
    if (error !== undefined) fail(this.span, errorType(error));
    this.span.end();
  }
  discard(): void {
    // A span never ended is never exported: nothing else to do.
  }
}

class OtlpRequestTrace implements RequestTrace {
  readonly recording = true;
  private operationName = 'chat';
  private readonly parent: Context;

  constructor(
    private readonly tracer: ApiTracer,
    private readonly span: Span,
    private readonly method: string,
    readonly capturesContent: boolean,
  ) {
    this.parent = trace.setSpan(ROOT_CONTEXT, span);
  }

  operation(genAi: string, gateway: string): void {
    this.operationName = genAi;
    this.span.setAttribute('gateway.operation', gateway);
  }
  hold(): StepSpan {
    return new OtlpStepSpan(this.tracer.startSpan('gateway.hold', { kind: SpanKind.INTERNAL }, this.parent));
  }
  settle(): StepSpan {
    return new OtlpStepSpan(this.tracer.startSpan('gateway.settle', { kind: SpanKind.INTERNAL }, this.parent));
  }
  upstreamTry(provider: TracedProvider, upstreamModel: string, attempt: number): UpstreamSpan {
    const attributes: Attributes = {
      'gen_ai.operation.name': this.operationName,
      // The provider kinds are named as the conventions name them ('openai', 'anthropic'); the others are their own.
      'gen_ai.provider.name': provider.kind,
      'gen_ai.request.model': upstreamModel,
      'gateway.provider': provider.name,
      'gateway.attempt': attempt,
    };
    return new OtlpUpstreamSpan(this.tracer.startSpan(`${this.operationName} ${upstreamModel}`, { kind: SpanKind.CLIENT, attributes }, this.parent));
  }
  end(answered: AnsweredRequest): void {
    const { span } = this;
    // The HTTP conventions' name: the method and the route's pattern (never the path: ids would make every name unique).
    if (answered.route !== 'unmatched') {
      span.updateName(`${this.method} ${answered.route}`);
      span.setAttribute('http.route', answered.route);
    }
    span.setAttribute('http.response.status_code', answered.status);
    if (answered.key) {
      span.setAttribute('gateway.account_id', answered.key.accountId);
      span.setAttribute('gateway.key_id', answered.key.id);
    }
    if (answered.model) span.setAttribute('gateway.model', answered.model);
    span.setAttribute('gateway.charge_rub', formatRub(answered.chargedUnits));
    if (answered.failure) span.setAttribute('gateway.error_code', answered.failure.code);
    // The HTTP conventions: a server span is an error for 5xx only (a 4xx is the client's).
    if (answered.status >= 500) fail(span, String(answered.status));
    span.end();
  }
}

/** Logs the first failed export and the recovery after it, not every batch in between. */
class LoggingExporter implements SpanExporter {
  private failing = false;
  constructor(
    private readonly inner: SpanExporter,
    private readonly logger: Logger,
    private readonly url: string,
  ) {}
  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans, (result) => {
      const failed = result.code !== 0;
      if (failed && !this.failing) this.logger.warn({ endpoint: this.url, err: result.error }, 'traces could not be exported (logged once until an export succeeds again)');
      if (!failed && this.failing) this.logger.info({ endpoint: this.url }, 'traces are exported again');
      this.failing = failed;
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

export class OtlpTracer implements Tracer {
  private constructor(
    private readonly provider: TracerProvider,
    private readonly tracer: ApiTracer,
    private readonly captureContent: boolean,
  ) {}

  static async open(config: OtlpConfig, logger: Logger): Promise<OtlpTracer> {
    if (config.headersProblem) logger.warn(config.headersProblem);
    const options = { url: config.tracesUrl, headers: { ...config.headers } };
    const exporter =
      config.protocol === 'http/json'
        ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(options)
        : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(options);
    // The caller's trace id is kept (the request joins its trace); whether it is sampled is
    // this gateway's ratio, not the caller's flag: a client cannot make every request traced.
    const ratio = new TraceIdRatioBasedSampler(config.sampleRatio);
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': config.serviceName }),
      sampler: new ParentBasedSampler({ root: ratio, remoteParentSampled: ratio, remoteParentNotSampled: ratio }),
      spanProcessors: [new BatchSpanProcessor({ exporter: new LoggingExporter(exporter, logger, config.tracesUrl) })],
    });
    logger.info({ endpoint: config.tracesUrl, protocol: config.protocol, sample_ratio: config.sampleRatio, capture_content: config.captureContent }, 'exporting traces over OTLP');
    return new OtlpTracer(provider, provider.getTracer('gateway'), config.captureContent);
  }

  startRequest(method: string, path: string, traceparent: string | undefined): RequestTrace {
    const parent = traceparent === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
    const span = this.tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path } }, parent);
    // Left out by the sampler: the rest of the request costs what it costs when traces are off.
    if (!span.isRecording()) return noopRequestTrace;
    return new OtlpRequestTrace(this.tracer, span, method, this.captureContent);
  }

  async close(): Promise<void> {
    await this.provider.shutdown();
  }
}
