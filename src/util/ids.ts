// Public identifiers: a readable prefix and 120 random bits in lowercase base32
// ("acc_4f7kq2…"), so ids cannot be guessed or enumerated across accounts.
import { randomFillSync } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

// Several ids are made per request: their random bytes come from a pool refilled 4 KB at a
// time (one call into the CSPRNG per ~270 ids instead of one per id). Bytes are never reused.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** `count` fresh random bytes (a view of the pool: read them before the next call). */
export function randomPoolBytes(count: number): Buffer {
  if (count > pool.length) throw new RangeError('too many random bytes at once');
  if (poolOffset + count > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += count;
  return pool.subarray(poolOffset - count, poolOffset);
}

export function newId(prefix: string, bytes = 15): string {
  const buffer = randomPoolBytes(bytes);
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
