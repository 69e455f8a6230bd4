// Thinking-block signatures, as the real Anthropic API uses them: an opaque token that proves
// the thinking text came from the model unchanged. Ours is base64 HMAC-SHA256(secret, text),
// so the simulator can reject a tampered or dropped signature with the same 400 as the real
// API, which is how tests prove that signatures survive the gateway's translation.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const defaultSigningSecret = 'gateway-simulator-signing-secret';

export function signThinking(secret: string, thinking: string): string {
  return createHmac('sha256', secret).update(thinking, 'utf8').digest('base64');
}

export function isValidThinkingSignature(secret: string, thinking: string, signature: unknown): boolean {
  if (typeof signature !== 'string' || signature.length === 0) return false;
  const expected = Buffer.from(signThinking(secret, thinking), 'base64');
  const given = Buffer.from(signature, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Opaque data of a redacted_thinking block: base64 of a marker and a MAC of the prompt seed. */
export function redactedThinkingData(secret: string, seed: string): string {
  const mac = createHmac('sha256', secret).update(`redacted:${seed}`).digest('hex').slice(0, 24);
  return Buffer.from(`sim-redacted-thinking:${mac}`, 'utf8').toString('base64');
}
