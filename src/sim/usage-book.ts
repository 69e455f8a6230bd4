// What the simulator would bill, as a vendor's usage API reports it (usage-api.ts): every
// request it answered (whatever reached the client: a stream cut by a fault or a client that
// went away still counts, as at a real vendor), by endpoint kind, model and minute. Kept per
// simulator in memory as sums per minute, so a benchmark's millions of requests cost a few
// map entries, not a row each; a query therefore resolves to whole minutes.

/** The usage kinds of OpenAI's organization usage API that the simulator keeps. */
export type UsageKind = 'completions' | 'embeddings';

export interface UsageCounts {
  requests: number;
  /** All input tokens, cached (read) and cache-write ones included, as OpenAI's `input_tokens`. */
  inputTokens: number;
  /** Input tokens read from the prompt cache. */
  cachedInputTokens: number;
  /** All output tokens, reasoning included. */
  outputTokens: number;
}

const minuteMs = 60_000;

export class UsageBook {
  /** `${kind}\u0000${model}` → minute (ms of its start) → sums. */
  private readonly sums = new Map<string, Map<number, UsageCounts>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** One request answered. */
  record(kind: UsageKind, model: string, counts: Omit<UsageCounts, 'requests'>): void {
    const key = `${kind}\u0000${model}`;
    let minutes = this.sums.get(key);
    if (!minutes) this.sums.set(key, (minutes = new Map()));
    const minute = Math.floor(this.now() / minuteMs) * minuteMs;
    const sums = minutes.get(minute) ?? { requests: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
    sums.requests += 1;
    sums.inputTokens += counts.inputTokens;
    sums.cachedInputTokens += counts.cachedInputTokens;
    sums.outputTokens += counts.outputTokens;
    minutes.set(minute, sums);
  }

  /** Sums per model of the minutes that start in [fromMs, toMs). */
  between(kind: UsageKind, fromMs: number, toMs: number): Map<string, UsageCounts> {
    const byModel = new Map<string, UsageCounts>();
    for (const [key, minutes] of this.sums) {
      const [entryKind, model] = key.split('\u0000') as [UsageKind, string];
      if (entryKind !== kind) continue;
      for (const [minute, sums] of minutes) {
        if (minute < fromMs || minute >= toMs) continue;
        const total = byModel.get(model) ?? { requests: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
        total.requests += sums.requests;
        total.inputTokens += sums.inputTokens;
        total.cachedInputTokens += sums.cachedInputTokens;
        total.outputTokens += sums.outputTokens;
        byModel.set(model, total);
      }
    }
    return byModel;
  }

  clear(): void {
    this.sums.clear();
  }

  /** The clock (ms): an open-ended query stops at now. */
  time(): number {
    return this.now();
  }
}
