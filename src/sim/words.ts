// Deterministic prose: a lead sentence followed by filler words until the text is exactly N
// tokens long, and the split of a text into stream deltas. Filler is chosen by a seed derived
// from the prompt, so different prompts read differently while the same prompt always yields
// the same text (and therefore the same usage).
import { countTokens } from './tokens.js';

const vocabulary = [
  'the', 'simulated', 'model', 'writes', 'a', 'steady', 'stream', 'of', 'plain', 'words', 'for', 'testing',
  'gateways', 'under', 'load', 'with', 'exact', 'token', 'counts', 'and', 'calm', 'predictable', 'answers',
  'that', 'never', 'change', 'between', 'runs', 'so', 'every', 'check', 'can', 'rely', 'on', 'them', 'while',
  'latency', 'usage', 'caching', 'retries', 'remain', 'easy', 'to', 'reason', 'about', 'in', 'each', 'case',
];

/** One word of each length 1..9, to fill the last few bytes exactly. */
const wordsByLength = ['', 'a', 'an', 'the', 'calm', 'words', 'steady', 'answers', 'gateways', 'streaming'];

/** A small non-cryptographic hash (FNV-1a) of a text, to seed the filler. */
export function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * `lead` followed by filler words until the text is exactly `tokens` tokens (4 bytes each,
 * rounded up). The lead is never cut: when it alone reaches the target, it is the whole text.
 */
export function fillToTokens(lead: string, tokens: number, seed: number): string {
  if (countTokens(lead) >= tokens) return lead;
  const maxBytes = tokens * 4;
  let text = lead;
  let bytes = Buffer.byteLength(lead, 'utf8');
  const separator = () => (text.length === 0 || text.endsWith(' ') ? '' : ' ');
  for (let i = 0; ; i++) {
    const word = vocabulary[(seed + i * 7) % vocabulary.length]!;
    const piece = separator() + word;
    if (bytes + piece.length <= maxBytes) {
      text += piece;
      bytes += piece.length;
      continue;
    }
    // The next word does not fit: finish with one word of exactly the remaining length
    // (the gap is < 10 bytes here), so the text lands on exactly `tokens` tokens.
    const room = maxBytes - bytes - separator().length;
    if (room > 0) text += separator() + wordsByLength[Math.min(room, wordsByLength.length - 1)]!;
    return text;
  }
}

/** Longest delta, so long unbroken strings (JSON, URLs) still stream in small pieces. */
const maxDeltaLength = 16;

/** Splits a text into stream deltas: one word with its trailing spaces each, long words in pieces. */
export function splitDeltas(text: string): string[] {
  const deltas: string[] = [];
  for (const match of text.matchAll(/\s*\S+\s*/g)) {
    const word = match[0];
    if (word.length <= maxDeltaLength) {
      deltas.push(word);
      continue;
    }
    splitFixed(word, maxDeltaLength, deltas);
  }
  if (deltas.length === 0 && text.length > 0) deltas.push(text);
  return deltas;
}

/** Pieces of about `size` UTF-16 units, never splitting a surrogate pair. */
export function splitFixed(text: string, size: number, into: string[] = []): string[] {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end++;
    into.push(text.slice(start, end));
    start = end;
  }
  return into;
}

/** Up to `length` characters of a text (whole code points), for quoting the prompt. */
export function firstChars(text: string, length: number): string {
  const chars = Array.from(text);
  return chars.length <= length ? text : chars.slice(0, length).join('');
}
