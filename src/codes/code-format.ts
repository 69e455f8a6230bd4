// What a redemption code looks like: 20 characters of a 32-character alphabet without the
// look-alikes 0/O and 1/I (5 bits each: 100 random bits), printed in groups of four
// (`ABCD-EFGH-JKLM-NPQR-STUV`) so a person can read it out and type it. A code is compared in
// its normalized form (upper case, no dashes or spaces: what people do to a code does not
// matter), and only the sha256 of that form is stored. 100 random bits cannot be guessed, so a
// fast hash is enough (as for API keys). Pure.
import { createHash, randomBytes } from 'node:crypto';

/** 24 letters without I and O, 8 digits without 0 and 1: 32 characters, 5 bits each. */
export const codeAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Characters of a code (normalized): 20 × 5 = 100 random bits. */
export const codeLength = 20;
const groupLength = 4;

/** A new code, grouped for printing (`ABCD-EFGH-JKLM-NPQR-STUV`). */
export function newCode(): string {
  // 5 bits per character from 13 random bytes (104 bits): no modulo bias, each character uniform.
  const bytes = randomBytes(13);
  let bits = 0;
  let value = 0;
  let code = '';
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5 && code.length < codeLength) {
      code += codeAlphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return groupCode(code);
}

/** `ABCDEFGH…` → `ABCD-EFGH-…`. */
export function groupCode(normalized: string): string {
  return normalized.match(new RegExp(`.{1,${groupLength}}`, 'g'))!.join('-');
}

/**
 * The form a code is compared in: upper case, without dashes and white space; undefined when
 * what was typed cannot be a code (wrong length or a character outside the alphabet), so it is
 * refused without a lookup.
 */
export function normalizeCode(typed: unknown): string | undefined {
  if (typeof typed !== 'string' || typed.length > 100) return undefined;
  const normalized = typed.replace(/[\s-]+/g, '').toUpperCase();
  if (normalized.length !== codeLength) return undefined;
  for (const character of normalized) if (!codeAlphabet.includes(character)) return undefined;
  return normalized;
}

/** The stored form: sha256 of the normalized code, hex. */
export function hashCode(normalized: string): string {
  return createHash('sha256').update(normalized).digest('hex');
}

/** What a list shows of a code: its last four characters. */
export const codeHint = (normalized: string) => normalized.slice(-groupLength);
