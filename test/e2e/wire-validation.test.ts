// Issue 14 item 12: validation status codes and shapes per the spec's rule (422 with `detail`):
// malformed JSON, responses `text` as a string, assistant messages with tool calls and no content.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { testOnBackends } from '../helpers/backends.js';
import { startChatGateway, upstreamKinds } from '../helpers/chat-gateway.js';

testOnBackends('malformed JSON is a 422 json_invalid with detail, in each dialect, and the SDKs see a 422', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  for (const path of ['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/embeddings', '/v1/images/generations']) {
    const answer = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"model": "sim/chat",' });
    t.is(answer.status, 422, path);
    const body = (await answer.json()) as { detail: { loc: unknown[]; type: string; msg: string }[]; error: { type: string } };
    t.is(body.detail[0]!.type, 'json_invalid', path);
    t.is(body.detail[0]!.loc[0], 'body');
    t.is(body.detail[0]!.msg, 'JSON decode error');
    t.is(body.error.type, 'invalid_request_error');
  }
  const notAnObject = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '"hello"' });
  t.is(notAnObject.status, 422);
  // The SDKs surface it as an UnprocessableEntityError (422).
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0, fetch: (url, init) => fetch(url, { ...init, body: '{' }) });
  const error = await t.throwsAsync(openai.chat.completions.create({ model: 'sim/chat', messages: [{ role: 'user', content: 'hi' }] }));
  t.true(error instanceof OpenAI.UnprocessableEntityError);
});

testOnBackends('responses accepts `text` as a string; chat accepts an assistant turn with tool calls and no content, over every upstream kind', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const withStringText = await openai.responses.create({ model: 'sim/chat', input: 'hi', text: 'plain' as never });
  t.is(withStringText.status, 'completed');
  const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  for (const kind of upstreamKinds) {
    const answer = await openai.chat.completions.create({
      model: `${kind}/chat`,
      tools,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
    });
    t.is(answer.choices[0]!.finish_reason, 'stop', kind);
  }
  // And the Anthropic dialect answers malformed JSON in its own error shape, with detail.
  const raw = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{' });
  const body = (await raw.json()) as { type: string; error: { type: string }; detail: unknown[] };
  t.is(body.type, 'error');
  t.is(body.error.type, 'invalid_request_error');
  t.true(Array.isArray(body.detail));
  t.truthy(Anthropic);
});
