// Issue 14: wire facts of /v1/messages that clients validating the body (or sending the
// fields coding agents send) depend on, checked through the official Anthropic SDK.
import Anthropic from '@anthropic-ai/sdk';
import { testOnBackends } from '../helpers/backends.js';
import { startChatGateway, testPrices, upstreamKinds } from '../helpers/chat-gateway.js';

function anthropicClient(url: string, key: string): Anthropic {
  return new Anthropic({ baseURL: url, apiKey: key, maxRetries: 0 });
}

testOnBackends('messages: text blocks without citations carry no `citations` key, over every upstream kind', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const client = anthropicClient(gateway.url, key);
  for (const kind of upstreamKinds) {
    const response = await client.messages.create({ model: `${kind}/chat`, max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] }).asResponse();
    const body = (await response.json()) as { content: Record<string, unknown>[] };
    t.is(body.content[0]!.type, 'text', kind);
    t.false('citations' in body.content[0]!, `${kind}: no citations key`);
  }
  // Cited answers still carry their array.
  const cited = await client.messages.create({ model: 'anthropic/search', max_tokens: 64, messages: [{ role: 'user', content: 'Why is the sky blue?' }] });
  t.true(cited.content.some((block) => block.type === 'text' && Array.isArray(block.citations) && block.citations.length > 0));
});

testOnBackends('messages: output_config.effort is a hint, accepted on every model; a refused thinking names body.thinking', async (t, database) => {
  const gateway = await startChatGateway(t, database, {
    models: [{ id: 't/always-thinks', name: 'always thinks', type: 'text', route: { provider: 'sim', model: 'reasoning' }, pricing: testPrices, capabilities: { reasoning_efforts: ['high'], max_output_tokens: 32768 } }],
  });
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const client = anthropicClient(gateway.url, key);
  for (const kind of upstreamKinds) {
    // A model that does not reason: the hint is dropped, the request served.
    const plain = await client.messages.create({ model: `${kind}/chat`, max_tokens: 64, output_config: { effort: 'high' }, messages: [{ role: 'user', content: 'hello' }] });
    t.is(plain.stop_reason, 'end_turn', `${kind}/chat`);
    t.false(plain.content.some((block) => block.type === 'thinking'), `${kind}/chat thinks not`);
    // A model that reasons: `max` (not in its list) is served at its closest level, `high`.
    const strong = await client.messages.create({ model: `${kind}/reasoning`, max_tokens: 20_000, output_config: { effort: 'max' }, messages: [{ role: 'user', content: 'hello' }] });
    t.is(strong.stop_reason, 'end_turn', `${kind}/reasoning`);
  }
  // What the client asked for explicitly is still checked, and the error names the field it came from
  // (issue 34: thinking enabled is a hint too; disabling reasoning a model cannot switch off is not).
  const refused = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 't/always-thinks', max_tokens: 4096, thinking: { type: 'disabled' }, messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.is(refused.status, 422);
  const body = (await refused.json()) as { detail: { loc: string[] }[]; error: { message: string } };
  t.deepEqual(body.detail[0]!.loc, ['body', 'thinking']);
  t.is(body.error.message, `body.thinking: thinking {"type":"disabled"} is not supported by t/always-thinks: use one of 'high'`);
});
