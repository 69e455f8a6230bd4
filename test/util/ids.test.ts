import test from 'ava';
import { newId, newRequestId, randomPoolBytes } from '../../src/util/ids.js';

test('ids are prefixed, 10 time and 16 random base32 characters, and never repeat across refills of the random pool', (t) => {
  const seen = new Set<string>();
  for (let index = 0; index < 20_000; index++) {
    const id = newId('hold');
    t.regex(id, /^hold_[a-z2-7]{26}$/);
    seen.add(id);
  }
  t.is(seen.size, 20_000);
  t.regex(newRequestId(), /^req_[0-9a-f]{32}$/);
});

test('ids made later sort later (new rows land at the right edge of their index)', (t) => {
  // Made at successive milliseconds of a held clock (no waiting for the real one to move).
  const ids: string[] = [];
  const requestIds: string[] = [];
  const realNow = Date.now;
  const start = realNow();
  try {
    for (let index = 0; index < 6; index++) {
      Date.now = () => start + index;
      ids.push(newId('hold'));
      requestIds.push(newRequestId());
    }
  } finally {
    Date.now = realNow;
  }
  t.deepEqual([...ids].sort(), ids);
  t.deepEqual([...requestIds].sort(), requestIds);
  // Across the 5-bit boundaries of the time prefix, too (ASCII order of the alphabet).
  const at = (ms: number) => {
    const realNow = Date.now;
    Date.now = () => ms;
    try {
      return newId('x');
    } finally {
      Date.now = realNow;
    }
  };
  const times = [0, 1, 31, 32, 1023, 1024, 1_795_000_000_000, 2 ** 49, 2 ** 50 - 1];
  const made = times.map(at);
  t.deepEqual([...made].sort(), made);
});

test('pooled random bytes: fresh bytes per call, and a request larger than the pool is refused', (t) => {
  const first = Buffer.from(randomPoolBytes(16));
  const second = Buffer.from(randomPoolBytes(16));
  t.false(first.equals(second));
  t.throws(() => randomPoolBytes(5000), { instanceOf: RangeError });
});
