// The background load of a round: a few lanes sending, until the round's end, a seeded mix of
// chat requests (streamed and not, over the three dialects, some with upstream faults), jobs
// (videos and music with idempotency keys, some replayed) and synchronous media, to whichever
// serve process is up. Nothing here judges the answers except an idempotent replay, whose job
// must be the one the first answer named: the money is judged by the checks afterwards.
import { setTimeout as sleep } from 'node:timers/promises';
import { silentWav } from '../../src/sim/media/wav.js';
import { type ChaosRequest, type ChaosResponse, parseJson, send } from './client.js';
import type { ChaosAccount, Cluster } from './cluster.js';
import { multipartBody, multipartHeaders } from './multipart.js';
import { type ChaosPayment, topUp } from './payments.js';
import type { Random } from './random.js';

/** Long enough for a slow stream on a loaded box, short enough that a hung request cannot stall a round. */
const requestTimeoutMs = 20_000;
const lanes = 6;

export interface LoadStats {
  sent: number;
  answered2xx: number;
  answered4xx: number;
  answered5xx: number;
  /** No complete answer: a killed process, a cut, a deadline. */
  cut: number;
  streams: number;
  jobsCreated: number;
  jobReplays: number;
  /** `idempotency key → [first job id, replay job id]` where the replay named another job. */
  readonly replayMismatches: string[];
  /** Top-ups made through the cabinet and what the customer did on the provider's page. */
  readonly payments: ChaosPayment[];
}

export function emptyLoadStats(): LoadStats {
  return { sent: 0, answered2xx: 0, answered4xx: 0, answered5xx: 0, cut: 0, streams: 0, jobsCreated: 0, jobReplays: 0, replayMismatches: [], payments: [] };
}

type Dialect = 'chat-completions' | 'messages' | 'responses';

export class Load {
  /** Streams being read right now, per serve URL: a kill aims at a process that has some. */
  readonly streamsInFlight = new Map<string, number>();
  private counter = 0;

  constructor(
    private readonly cluster: Cluster,
    private readonly random: Random,
    private readonly tag: string,
    readonly stats: LoadStats,
  ) {}

  /** Runs the lanes until `durationMs` has passed; resolves when every request has ended. */
  async run(durationMs: number): Promise<void> {
    const until = Date.now() + durationMs;
    await Promise.all(Array.from({ length: lanes }, () => this.lane(until)));
  }

  private async lane(until: number): Promise<void> {
    while (Date.now() < until) {
      const urls = this.cluster.serveUrls();
      if (urls.length === 0) {
        await sleep(100); // every serve process is down (killed by a fault): the lane idles until one is back
        continue;
      }
      const url = this.random.pick(urls);
      const account = this.random.weighted<ChaosAccount>(this.cluster.accounts.map((candidate) => [candidate, candidate.balanceUnits > 1_000_000n ? 3 : 1]));
      const kind = this.random.weighted([
        ['chat', 6],
        ['job', 2],
        ['media', 2],
        ['payment', 1],
      ] as const);
      if (kind === 'chat') await this.chat(url, account);
      else if (kind === 'job') await this.job(url, account);
      else if (kind === 'payment') await this.payment(account);
      else await this.media(url, account);
    }
  }

  private async exchange(url: string, request: ChaosRequest, options: { stream?: boolean } = {}): Promise<ChaosResponse> {
    this.stats.sent++;
    if (options.stream) {
      this.stats.streams++;
      this.streamsInFlight.set(url, (this.streamsInFlight.get(url) ?? 0) + 1);
    }
    try {
      const response = await send(url, request, requestTimeoutMs);
      if (response.status === 0) this.stats.cut++;
      else if (response.status < 300) this.stats.answered2xx++;
      else if (response.status < 500) this.stats.answered4xx++;
      else this.stats.answered5xx++;
      return response;
    } finally {
      if (options.stream) this.streamsInFlight.set(url, (this.streamsInFlight.get(url) ?? 1) - 1);
    }
  }

  private chatText(stream: boolean): string {
    const tokens = this.random.int(20, 80);
    // Streams last 0.2–2.4 s, so a kill or a cut meets some mid-way.
    let text = `chaos ${this.tag} chat ${this.counter++} [[sim:tokens=${tokens}]]`;
    text += stream ? ` [[sim:delay=${this.random.int(10, 30)}]]` : ` [[sim:ttfb=${this.random.int(0, 400)}]]`;
    const upstreamFault = this.random.weighted([
      ['', 90],
      [' [[sim:fail-mid]]', 4],
      [' [[sim:drop]]', 3],
      [' [[sim:status=500]]', 3],
    ] as const);
    return text + upstreamFault;
  }

  private async chat(url: string, account: ChaosAccount): Promise<void> {
    const dialect = this.random.pick<Dialect>(['chat-completions', 'messages', 'responses']);
    const stream = this.random.chance(0.6);
    const model = this.random.chance(0.7) ? 'sim/chat' : 'sim/reasoning';
    const text = this.chatText(stream);
    const json =
      dialect === 'chat-completions'
        ? { model, messages: [{ role: 'user', content: text }], max_tokens: 300, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) }
        : dialect === 'messages'
          ? { model, max_tokens: 300, messages: [{ role: 'user', content: text }], stream }
          : { model, input: text, max_output_tokens: 300, stream };
    const path = dialect === 'chat-completions' ? '/v1/chat/completions' : dialect === 'messages' ? '/v1/messages' : '/v1/responses';
    await this.exchange(url, { method: 'POST', path, key: account.key, json }, { stream });
  }

  private async job(url: string, account: ChaosAccount): Promise<void> {
    const number = this.counter++;
    const seconds = (0.5 + this.random.int(0, 4) * 0.5).toFixed(1);
    const failing = this.random.chance(0.1) ? ' [[sim:job-fail]]' : '';
    // A slow submit (the upstream job exists before its answer): a worker killed meanwhile must
    // find that job again, not submit a second one.
    const slowSubmit = this.random.chance(0.3) ? ` [[sim:submit-delay=${this.random.int(200, 1500)}]]` : '';
    const prompt = `chaos ${this.tag} job ${number} [[sim:job-seconds=${seconds}]]${failing}${slowSubmit}`;
    const idempotencyKey = `chaos-${this.tag}-${number}`;
    const isVideo = this.random.chance(0.6);
    const request: ChaosRequest = isVideo
      ? { method: 'POST', path: '/v1/videos', key: account.key, json: { model: 'sim/video', prompt, seconds: 4, idempotency_key: idempotencyKey } }
      : { method: 'POST', path: '/v1/audio/music', key: account.key, json: { model: 'sim/song', prompt, idempotency_key: idempotencyKey } };
    const first = await this.exchange(url, request);
    const firstId = first.status === 200 ? parseJson(first.body)?.id : undefined;
    if (firstId) this.stats.jobsCreated++;
    if (!this.random.chance(0.25)) return;
    // The same request again (a client retrying after a timeout), maybe to the other process.
    const urls = this.cluster.serveUrls();
    if (urls.length === 0) return;
    this.stats.jobReplays++;
    const replay = await this.exchange(this.random.pick(urls), request);
    const replayId = replay.status === 200 ? parseJson(replay.body)?.id : undefined;
    if (firstId && replayId && replayId !== firstId) this.stats.replayMismatches.push(`${idempotencyKey}: ${firstId} then ${replayId}`);
  }

  private async payment(account: ChaosAccount): Promise<void> {
    this.stats.sent++;
    const payment = await topUp(() => this.cluster.serveUrls(), this.cluster.logins.get(account.id)!, this.random, requestTimeoutMs);
    if (payment) this.stats.payments.push(payment);
  }

  private async media(url: string, account: ChaosAccount): Promise<void> {
    const number = this.counter++;
    const kind = this.random.pick(['image', 'speech', 'embeddings', 'transcription'] as const);
    if (kind === 'image') {
      await this.exchange(url, { method: 'POST', path: '/v1/images/generations', key: account.key, json: { model: 'sim/image', prompt: `chaos ${this.tag} image ${number}`, size: '64x64' } });
    } else if (kind === 'speech') {
      await this.exchange(url, { method: 'POST', path: '/v1/audio/speech', key: account.key, json: { model: 'sim/tts', input: `chaos ${this.tag} speech ${number}`, voice: 'alloy' } });
    } else if (kind === 'embeddings') {
      await this.exchange(url, { method: 'POST', path: '/v1/embeddings', key: account.key, json: { model: 'sim/embedding-small', input: `chaos ${this.tag} embedding ${number}` } });
    } else {
      const boundary = `chaos${number}`;
      const raw = multipartBody(
        [
          { name: 'model', value: 'sim/stt' },
          { name: 'file', value: silentWav(1), filename: 'chaos.wav', contentType: 'audio/wav' },
        ],
        boundary,
      );
      await this.exchange(url, { method: 'POST', path: '/v1/audio/transcriptions', key: account.key, raw, headers: multipartHeaders(boundary) });
    }
  }
}

