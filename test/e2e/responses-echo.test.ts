// Issue 34 item 4: the Responses object echoes the request's `instructions` and `metadata`
// (they were used, yet the answer showed null and {}), streamed and not; bad metadata is a 422
// naming the field.
import OpenAI from 'openai';
import { testOnBackends } from '../helpers/backends.js';
import { startChatGateway } from '../helpers/chat-gateway.js';

testOnBackends('responses echo instructions and metadata, streamed and not; metadata beyond the limits is a 422', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const request = { model: 'sim/chat', instructions: 'Answer in one word.', metadata: { ticket: 'T-17', team: 'support' }, input: 'hi' };

  const response = await openai.responses.create(request);
  t.is(response.instructions, 'Answer in one word.');
  t.deepEqual(response.metadata, { ticket: 'T-17', team: 'support' });

  const streamed = await openai.responses.stream(request).finalResponse();
  t.is(streamed.instructions, 'Answer in one word.');
  t.deepEqual(streamed.metadata, { ticket: 'T-17', team: 'support' });

  const plain = await openai.responses.create({ model: 'sim/chat', input: 'hi' });
  t.is(plain.instructions, null);
  t.deepEqual(plain.metadata, {});

  const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
  const refused = (await t.throwsAsync(openai.responses.create({ model: 'sim/chat', input: 'hi', metadata: tooMany }))) as any;
  t.is(refused.status, 422);
  t.is(refused.error.param, 'metadata');
  const notString = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/chat', input: 'hi', metadata: { n: 1 } }),
  });
  t.is(notString.status, 422);
  const body = (await notString.json()) as { detail: { loc: unknown[]; type: string }[] };
  t.deepEqual(body.detail[0]!.loc, ['body', 'metadata', 'n']);
});
