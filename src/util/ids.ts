// Public identifiers: a readable prefix, the creation time, and 80 random bits in lowercase
// base32 ("hold_2f7kq2mxab…"), so ids cannot be guessed or enumerated across accounts.
//
// The time comes first, in an alphabet whose characters sort in ASCII order, so ids made later
// sort later: a new row's id lands at the right edge of its B-tree index, on the page the last
// inserts touched, instead of on a random page. With random ids every insert of a hold, ledger
// row, request log or usage record dirtied its own index page (written to the WAL at each
// commit and checkpointed); in time order the requests of a group commit share them.
import { randomFillSync } from 'node:crypto';

/** The base32 characters in ASCII order (the same set as before: [2-7a-z]). */
const alphabet = '234567abcdefghijklmnopqrstuvwxyz';

// Several ids are made per request: their random bytes come from a pool refilled 4 KB at a
// time (one call into the CSPRNG per ~400 ids instead of one per id). Bytes are never reused.
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

/** Milliseconds since the epoch in 10 base32 characters (50 bits: good until the year 37,000). */
function timePrefix(now: number): string {
  let out = '';
  for (let shift = 45; shift >= 0; shift -= 5) out += alphabet[Math.floor(now / 2 ** shift) % 32];
  return out;
}

/** `prefix_` + the time (10 characters) + `randomBytes` random bytes (8 bits → 1.6 characters). */
export function newId(prefix: string, randomBytes = 10): string {
  const buffer = randomPoolBytes(randomBytes);
  let bits = 0;
  let value = 0;
  let out = `${prefix}_${timePrefix(Date.now())}`;
  for (const byte of buffer) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** A request id: `req_`, the time (12 hex digits) and 80 random bits (20 hex digits); time-ordered like newId. */
export function newRequestId(): string {
  return `req_${Date.now().toString(16).padStart(12, '0')}${randomPoolBytes(10).toString('hex')}`;
}
