// Public identifiers: a readable prefix and 120 random bits in lowercase base32
// ("acc_4f7kq2…"), so ids cannot be guessed or enumerated across accounts.
import { randomBytes } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

export function newId(prefix: string, bytes = 15): string {
  const buffer = randomBytes(bytes);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of buffer) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return `${prefix}_${out}`;
}
