import test from 'ava';
import { createKeyv } from '../../src/cache/keyv.js';
import type { ChatRequest } from '../../src/model/chat.js';
import { countTextTokens } from '../../src/model/token-estimate.js';
import { PrefixTracker } from '../../src/pipeline/prefix-tracker.js';
import { countRun, needing, redisUrl } from '../helpers/backends.js';

const opening = 'Hi there, how are you today?';
const reply = 'Fine, thanks for asking.';
const conversation = (last: string, model = 'm', first = opening, answer = reply): [string, ChatRequest] => [
  model,
  {
    model,
    system: [{ type: 'text', text: 'Be brief.' }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: first }] },
      { role: 'assistant', content: [{ type: 'text', text: answer }] },
      { role: 'user', content: [{ type: 'text', text: last }] },
    ],
    tools: [],
    stop: [],
    stream: false,
    includeUsage: false,
  },
];

// The tokens of a prefix: system and tools (no tools: "[]"), then each message's text.
const systemTokens = countTextTokens('Be brief.' + '[]');
const wholePrefix = systemTokens + countTextTokens(opening) + countTextTokens(reply);

test('a remembered prefix reports its tokens as cached; another model or conversation does not', async (t) => {
  const tracker = new PrefixTracker(await createKeyv<number>('memory', `prefix-test-${process.pid}`));
  t.is(await tracker.cachedTokens(...conversation('one')), 0);
  // Everything before the last message was seen: all of it is cached.
  t.is(await tracker.cachedTokens(...conversation('two')), wholePrefix);
  t.is(await tracker.cachedTokens(...conversation('two', 'other-model')), 0);
  // Another conversation with the same system prompt: its first message differs, nothing matches.
  t.is(await tracker.cachedTokens(...conversation('two', 'm', 'Something else entirely')), 0);
  // One that shares the first message only: the longest seen prefix, up to that message.
  t.is(await tracker.cachedTokens(...conversation('two', 'm', opening, 'Another answer')), systemTokens + countTextTokens(opening));
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
  t.is(await new PrefixTracker(second).cachedTokens(...conversation('two')), wholePrefix);
  countRun('redis');
});
