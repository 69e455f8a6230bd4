// Issue 14: wire facts of /v1/messages that clients validating the body (or sending the
// fields coding agents send) depend on, checked through the official Anthropic SDK.
import Anthropic from '@anthropic-ai/sdk';
import { testOnBackends } from '../helpers/backends.js';
import { startChatGateway, upstreamKinds } from '../helpers/chat-gateway.js';

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
