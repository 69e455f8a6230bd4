import test from 'ava';
import { createKeyv } from '../../src/cache/keyv.js';
import type { ChatRequest } from '../../src/model/chat.js';
import { PrefixTracker } from '../../src/pipeline/prefix-tracker.js';
import { countRun, needing, redisUrl } from '../helpers/backends.js';

const conversation = (last: string, model = 'm'): [string, ChatRequest] => [
  model,
  {
    model,
    system: [{ type: 'text', text: 'Be brief.' }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Hi there, how are you today?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Fine, thanks for asking.' }] },
      { role: 'user', content: [{ type: 'text', text: last }] },
    ],
    tools: [],
    stop: [],
    stream: false,
    includeUsage: false,
  },
];

test('a remembered prefix reports its tokens as cached; another model or conversation does not', async (t) => {
  const tracker = new PrefixTracker(await createKeyv<number>('memory', `prefix-test-${process.pid}`));
  t.is(await tracker.cachedTokens(...conversation('one')), 0);
  const cached = await tracker.cachedTokens(...conversation('two'));
  t.true(cached > 0);
  t.is(await tracker.cachedTokens(...conversation('two', 'other-model')), 0);
});

const redisTest = needing('redis');
redisTest('through Redis, a prefix seen by one process counts as cached in another', async (t) => {
  const namespace = `prefix-test-${process.pid}-${Date.now()}`;
  const first = await createKeyv<number>(redisUrl!, namespace);
  const second = await createKeyv<number>(redisUrl!, namespace);
  t.teardown(async () => {
    await first.disconnect();
    await second.disconnect();
  });
  t.is(await new PrefixTracker(first).cachedTokens(...conversation('one')), 0);
  t.true((await new PrefixTracker(second).cachedTokens(...conversation('two'))) > 0);
  countRun('redis');
});
