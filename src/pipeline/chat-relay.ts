// The relay of one chat answer to the client: parts in the gateway's representation go in as the
// upstream sends them, the dialect's bytes go out at once (a streaming client) or as one JSON
// body at the end. It owns what the stream needs between parts:
// - the parts that carry no output (start, usage), held back until the first output part: only
//   then is the 200 committed, so a failure before any output is still a normal JSON error;
// - the dialect's encoder, made at that commit;
// - the keep-alive: a stream silent for `keepAliveMs` gets an SSE comment, so proxies and
//   clients do not time it out (a long think before the first token commits the 200 there);
// - the answer accumulated so far, which meter.ts bills and the non-streaming answer is made of.
import type { Dialect, StreamEncoder } from '../dialects/types.js';
import { ResultAccumulator } from '../model/accumulate.js';
import type { ChatRequest, ChatResult, StreamPart, Usage } from '../model/chat.js';
import { countTextTokens } from '../model/token-estimate.js';
import type { ResponseSink } from './sink.js';

export class ChatRelay {
  accumulator = new ResultAccumulator();
  /** When the first output part arrived (performance.now()), undefined while none has. */
  firstOutputAt: number | undefined;
  private encoder: StreamEncoder | undefined;
  private pending: StreamPart[] = [];
  private lastWriteAt = performance.now();
  private readonly keepAlive: NodeJS.Timeout | undefined;
  readonly created = Math.floor(Date.now() / 1000);

  constructor(
    private readonly dialect: Dialect,
    private readonly request: ChatRequest,
    private readonly sink: ResponseSink,
    private readonly fallbackId: string,
    /** Cached input tokens the gateway tracked itself, for upstreams that cache but do not say so. */
    private readonly trackedCachedTokens: number,
    keepAliveMs: number,
  ) {
    this.keepAlive = request.stream ? setInterval(() => this.ping(keepAliveMs), Math.min(1_000, keepAliveMs)) : undefined;
  }

  /** True once anything but the start and usage parts has come. */
  get producedOutput(): boolean {
    return this.firstOutputAt !== undefined;
  }

  /** True once the 200 went out: a failure from here on is written into the stream. */
  get committed(): boolean {
    return this.encoder !== undefined;
  }

  /** A new try of another route: what an earlier try accumulated (nothing it sent the client) is forgotten. */
  startAttempt(): void {
    this.accumulator = new ResultAccumulator();
    this.pending = [];
  }

  handle(parts: readonly StreamPart[]): void {
    for (const part of parts) this.handleOne(this.withUsageCompleted(part));
  }

  private handleOne(part: StreamPart): void {
    this.accumulator.push(part);
    const isOutput = part.type !== 'start' && part.type !== 'usage';
    if (isOutput && part.type !== 'finish' && this.firstOutputAt === undefined) this.firstOutputAt = performance.now();
    if (!this.request.stream) return;
    if (!this.encoder) {
      if (!isOutput) {
        this.pending.push(part);
        return;
      }
      this.commit();
    }
    this.write(this.encoder!.encode(part));
  }

  /**
   * A usage report completed with what the gateway knows: the tracked cached prefix, and the
   * reasoning share of an upstream that counts thinking inside output tokens without saying
   * how much (counted from the reasoning text, never more than the output itself).
   */
  private withUsageCompleted(part: StreamPart): StreamPart {
    if (part.type !== 'usage') return part;
    let { usage } = part;
    if (this.trackedCachedTokens > 0 && usage.cachedInputTokens === 0) usage = { ...usage, cachedInputTokens: Math.min(this.trackedCachedTokens, usage.inputTokens) };
    const reasoning = usage.reasoningTokens === 0 ? this.accumulator.reasoningText() : '';
    if (reasoning !== '') usage = { ...usage, reasoningTokens: Math.min(countTextTokens(reasoning), usage.outputTokens) };
    return usage === part.usage ? part : { type: 'usage', usage };
  }

  private commit(): void {
    this.encoder = this.dialect.createStreamEncoder(this.request, { id: this.accumulator.id || this.fallbackId, created: this.created });
    this.sink.startStream();
    for (const early of this.pending) this.sink.write(this.encoder.encode(early));
    this.pending = [];
  }

  private write(text: string): void {
    if (!text) return;
    this.sink.write(text);
    this.lastWriteAt = performance.now();
  }

  private ping(keepAliveMs: number): void {
    if (performance.now() - this.lastWriteAt < keepAliveMs) return;
    if (!this.encoder) this.commit();
    this.write(': ping\n\n');
  }

  /** The upstream exchange is over: no more keep-alives. */
  stop(): void {
    clearInterval(this.keepAlive);
  }

  /** The answer as it will be sent (the id the client sees: the upstream's, else the request's). */
  result(usage: Usage, estimated: boolean): ChatResult {
    const result = this.accumulator.result({ created: this.created, usage, usageEstimated: estimated });
    return { ...result, id: result.id || this.fallbackId };
  }

  /** The answer's end (`result` as built by result()): the stream's closing events, or the whole JSON body. */
  finish(result: ChatResult): void {
    if (!this.request.stream) {
      this.sink.sendJson(this.dialect.encodeResult(result, this.request));
      return;
    }
    if (!this.encoder) {
      this.encoder = this.dialect.createStreamEncoder(this.request, { id: result.id, created: this.created });
      this.sink.startStream();
    }
    this.sink.write(this.encoder.end(result.usage));
    this.sink.end();
  }

  /** A failure after the first byte: the dialect's in-stream error, then the end. */
  fail(message: string, type: string): void {
    this.sink.write(this.encoder!.error(message, type));
    this.sink.end();
  }
}
