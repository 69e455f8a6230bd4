// Passwords, hashed with Node's scrypt (memory-hard; no native package to build). The stored
// form names its parameters, so they can be raised later without breaking old hashes:
//   scrypt$N=32768,r=8,p=1$<salt base64url>$<hash base64url>
// N=2^15, r=8, p=1 uses 32 MiB and about 50-150 ms of one core per hash here: slow enough to
// make a stolen table expensive to search, fast enough for a login. docs/cabinet.md says so.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const scryptParameters = { N: 32768, r: 8, p: 1 } as const;
const keyLength = 32;
const saltLength = 16;

export const minimumPasswordLength = 10;
export const maximumPasswordLength = 200;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  // maxmem: scrypt needs 128 * N * r bytes; Node's default allowance (32 MiB) is just short of it.
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, keyLength, { ...options, maxmem: 256 * options.N! * options.r! }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(saltLength);
  const key = await derive(password, salt, scryptParameters);
  const { N, r, p } = scryptParameters;
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A hash of nothing anyone knows: verified against when the email is unknown, so both answers take the same time. */
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(randomBytes(24).toString('base64url'));
  return decoyHash;
}

/** Whether `password` is the one `stored` was made from; false for a malformed stored value. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([\w-]+)\$([\w-]+)$/.exec(stored);
  if (!match) return false;
  const expected = Buffer.from(match[5]!, 'base64url');
  const key = await derive(password, Buffer.from(match[4]!, 'base64url'), { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
