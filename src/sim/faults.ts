// Per-request behaviour switches ("magic strings") read from the LAST user turn, so a test can
// reach any fault through the whole gateway by writing it into an ordinary prompt:
//   [[sim:status=429]]        that HTTP error before any byte (429 carries retry-after: 1)
//   [[sim:retry-after=S]]     a 429's retry-after is S seconds instead
//   [[sim:fail-mid]]          an in-stream error event after half the chunks (non-stream: 500)
//   [[sim:drop]]              the socket is destroyed after half the chunks (non-stream: at once)
//   [[sim:no-usage]]          the stream carries no usage at all
//   [[sim:usage-in-choice]]   OpenAI: usage rides on the last chunk that still has choices
//   [[sim:delay=MS]]          MS milliseconds between chunks
//   [[sim:ttfb=MS]]           MS milliseconds before the first byte
//   [[sim:tokens=N]]          the text answer is N tokens long (default 20)
//   [[sim:redacted]]          Anthropic thinking also yields a redacted_thinking block

export interface Faults {
  /** HTTP status to fail with before any byte (4xx/5xx). */
  readonly status?: number;
  /** The Retry-After of that status when it is a 429, in seconds. */
  readonly retryAfterSeconds: number;
  readonly failMid: boolean;
  readonly drop: boolean;
  readonly noUsage: boolean;
  readonly usageInChoice: boolean;
  readonly delayMs: number;
  readonly ttfbMs: number;
  /** Requested answer length in tokens. */
  readonly tokens?: number;
  readonly redacted: boolean;
}

export const noFaults: Faults = { retryAfterSeconds: 1, failMid: false, drop: false, noUsage: false, usageInChoice: false, delayMs: 0, ttfbMs: 0, redacted: false };

const magicPattern = /\[\[sim:([a-z-]+)(?:=(\d+))?\]\]/g;

/** Caps keep a typo from hanging a test run or allocating an absurd answer. */
const maxWaitMs = 60_000;
const maxTokens = 1_000_000;

export function parseFaults(text: string): Faults {
  // Cheap exit for the common case (benchmarks): no magic string at all.
  if (!text.includes('[[sim:')) return noFaults;
  const faults: { -readonly [K in keyof Faults]: Faults[K] } = { ...noFaults };
  for (const match of text.matchAll(magicPattern)) {
    const name = match[1];
    const value = match[2] === undefined ? undefined : Number(match[2]);
    switch (name) {
      case 'status':
        if (value !== undefined && value >= 400 && value <= 599) faults.status = value;
        break;
      case 'retry-after':
        if (value !== undefined) faults.retryAfterSeconds = Math.min(value, maxWaitMs / 1000);
        break;
      case 'fail-mid':
        faults.failMid = true;
        break;
      case 'drop':
        faults.drop = true;
        break;
      case 'no-usage':
        faults.noUsage = true;
        break;
      case 'usage-in-choice':
        faults.usageInChoice = true;
        break;
      case 'delay':
        if (value !== undefined) faults.delayMs = Math.min(value, maxWaitMs);
        break;
      case 'ttfb':
        if (value !== undefined) faults.ttfbMs = Math.min(value, maxWaitMs);
        break;
      case 'tokens':
        if (value !== undefined) faults.tokens = Math.min(value, maxTokens);
        break;
      case 'redacted':
        faults.redacted = true;
        break;
    }
  }
  return faults;
}

/** The prompt without its magic strings, as the answer quotes it. */
export function stripMagic(text: string): string {
  return text.includes('[[sim:') ? text.replace(magicPattern, '').replace(/\s+/g, ' ').trim() : text.trim();
}
