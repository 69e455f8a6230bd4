import test from 'ava';
import { newId, randomPoolBytes } from '../../src/util/ids.js';

test('ids are prefixed, 24 base32 characters for 120 bits, and never repeat across refills of the random pool', (t) => {
  const seen = new Set<string>();
  for (let index = 0; index < 20_000; index++) {
    const id = newId('hold');
    t.regex(id, /^hold_[a-z2-7]{24}$/);
    seen.add(id);
  }
  t.is(seen.size, 20_000);
});

test('pooled random bytes: fresh bytes per call, and a request larger than the pool is refused', (t) => {
  const first = Buffer.from(randomPoolBytes(16));
  const second = Buffer.from(randomPoolBytes(16));
  t.false(first.equals(second));
  t.throws(() => randomPoolBytes(5000), { instanceOf: RangeError });
});
