// The simulator's Bedrock runtime (src/sim/vendors/bedrock/) spoken to by AWS's own SDK
// (@aws-sdk/client-bedrock-runtime, its endpoint pointed at the simulator): if the SDK reads
// the simulator's Converse answers, its binary ConverseStream events and its errors, so does
// anything written against the real service. Exact token counts follow the simulator's one
// rule (src/sim/tokens.ts).
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import test from 'ava';
import { startSimulator } from '../../src/sim/server.js';
import { sigV4Problems, type SignedRequest } from '../helpers/sigv4.js';

const credentials = { accessKeyId: 'AKIASIMULATED0000001', secretAccessKey: 'simulated-secret-access-key' };

async function client(t: { teardown(fn: () => Promise<void>): void }): Promise<{ client: BedrockRuntimeClient; url: string }> {
  const simulator = await startSimulator();
  t.teardown(() => simulator.close());
  // HTTP/1.1: the SDK's default for this client is HTTP/2, which the simulator does not speak.
  return { url: simulator.url, client: new BedrockRuntimeClient({ region: 'eu-central-1', endpoint: `${simulator.url}/bedrock`, credentials, maxAttempts: 1, requestHandler: new NodeHttpHandler() }) };
}

const claude = 'us.anthropic.claude-sonnet-4-20250514-v1:0';

test('Converse: the SDK reads the answer and its usage', async (t) => {
  const { client: bedrock } = await client(t);
  const answer = await bedrock.send(
    new ConverseCommand({ modelId: 'amazon.nova-lite-v1:0', messages: [{ role: 'user', content: [{ text: 'Hello there' }] }], inferenceConfig: { maxTokens: 100 } }),
  );
  t.is(answer.stopReason, 'end_turn');
  t.is(answer.output?.message?.role, 'assistant');
  const text = answer.output?.message?.content?.[0]?.text ?? '';
  t.true(text.startsWith('Simulated answer to "Hello there"'));
  // 3 tokens of message framing + ceil(11 / 4) = 6; the answer is 20 tokens.
  t.deepEqual(answer.usage, { inputTokens: 6, outputTokens: 20, totalTokens: 26 });
  t.deepEqual(answer.metrics, { latencyMs: 120 });
});

test('ConverseStream: the SDK decodes every event, reasoning with its signature and tool use included', async (t) => {
  const { client: bedrock } = await client(t);
  const answer = await bedrock.send(
    new ConverseStreamCommand({
      modelId: claude,
      messages: [{ role: 'user', content: [{ text: 'What is the weather?' }] }],
      inferenceConfig: { maxTokens: 4000 },
      toolConfig: { tools: [{ toolSpec: { name: 'get_weather', description: 'Weather', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } } }] },
      additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
    }),
  );
  const events: ConverseStreamOutput[] = [];
  for await (const event of answer.stream!) events.push(event);
  const kinds = events.map((event) => Object.entries(event).find(([, value]) => value !== undefined)?.[0]);
  t.is(kinds[0], 'messageStart');
  t.deepEqual(kinds.slice(-2), ['messageStop', 'metadata']);
  const reasoning = events.flatMap((event) => (event.contentBlockDelta?.delta?.reasoningContent?.text ? [event.contentBlockDelta.delta.reasoningContent.text] : [])).join('');
  t.true(reasoning.startsWith('Considering: What is the weather?'));
  t.true(events.some((event) => typeof event.contentBlockDelta?.delta?.reasoningContent?.signature === 'string'));
  const toolStart = events.find((event) => event.contentBlockStart)?.contentBlockStart;
  t.is(toolStart?.start?.toolUse?.name, 'get_weather');
  t.regex(toolStart?.start?.toolUse?.toolUseId ?? '', /^tooluse_[0-9a-f]{12}$/);
  const input = events.flatMap((event) => (event.contentBlockDelta?.delta?.toolUse?.input ? [event.contentBlockDelta.delta.toolUse.input] : [])).join('');
  t.deepEqual(Object.keys(JSON.parse(input) as object), ['city']);
  t.is(events.at(-2)?.messageStop?.stopReason, 'tool_use');
  const usage = events.at(-1)?.metadata?.usage;
  t.true((usage?.inputTokens ?? 0) > 0);
  t.is(usage?.totalTokens, (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0));
});

test('ConverseStream: cache points write, then read, the prefix they end', async (t) => {
  const { client: bedrock } = await client(t);
  const system = [{ text: 'You are a careful assistant. '.repeat(20) }, { cachePoint: { type: 'default' as const } }];
  const ask = async (question: string) => {
    const answer = await bedrock.send(new ConverseStreamCommand({ modelId: claude, system, messages: [{ role: 'user', content: [{ text: question }] }] }));
    let usage: unknown;
    for await (const event of answer.stream!) if (event.metadata) usage = event.metadata.usage;
    return usage as { inputTokens: number; cacheReadInputTokens: number; cacheWriteInputTokens: number };
  };
  // The system text: 3 framing + ceil(580 / 4) = 148 tokens.
  const first = await ask('First question');
  t.is(first.cacheWriteInputTokens, 148);
  t.is(first.cacheReadInputTokens, 0);
  const second = await ask('Second question');
  t.is(second.cacheReadInputTokens, 148);
  t.is(second.cacheWriteInputTokens, 0);
});

test('errors come in AWS shape: the SDK names the exception', async (t) => {
  const { client: bedrock } = await client(t);
  const send = (text: string, modelId = claude) => bedrock.send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text }] }] }));
  const throttled = await t.throwsAsync(send('hi [[sim:status=429]]'));
  t.is(throttled?.name, 'ThrottlingException');
  t.is(throttled?.message, 'Too many requests, please wait before trying again.');
  t.is((await t.throwsAsync(send('hi [[sim:status=403]]')))?.name, 'AccessDeniedException');
  t.is((await t.throwsAsync(send('hi [[sim:status=500]]')))?.name, 'InternalServerException');
  t.is((await t.throwsAsync(send('hi', 'amazon.nova-pro-v1:0-not-ready')))?.name, 'ModelNotReadyException');
  const invalid = await t.throwsAsync(bedrock.send(new ConverseCommand({ modelId: claude, messages: [{ role: 'assistant', content: [{ text: 'hi' }] }] })));
  t.is(invalid?.name, 'ValidationException');
  t.regex(invalid?.message ?? '', /must start with a user message/);
});

test('an in-stream failure reaches the SDK as the exception event it is', async (t) => {
  const { client: bedrock } = await client(t);
  const answer = await bedrock.send(new ConverseStreamCommand({ modelId: claude, messages: [{ role: 'user', content: [{ text: 'tell me [[sim:fail-mid]]' }] }] }));
  const error = await t.throwsAsync(async () => {
    for await (const event of answer.stream!) void event;
  });
  t.is(error?.name, 'InternalServerException');
});

test('a request without a SigV4 Authorization is refused with 403', async (t) => {
  const { url } = await client(t);
  const response = await fetch(`${url}/bedrock/model/${encodeURIComponent(claude)}/converse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] }),
  });
  t.is(response.status, 403);
  t.is(response.headers.get('x-amzn-errortype')?.split(':')[0], 'MissingAuthenticationTokenException');
  t.deepEqual(await response.json(), { message: 'Missing Authentication Token' });
  const unknown = await fetch(`${url}/bedrock/nothing-here`, { method: 'POST' });
  t.is(unknown.status, 404);
});

test('the simulator records what was signed: the AWS SDK\'s own signature checks out with the independent SigV4 helper', async (t) => {
  const { client: bedrock, url } = await client(t);
  await bedrock.send(new ConverseCommand({ modelId: claude, messages: [{ role: 'user', content: [{ text: 'Sign me' }] }] }));
  const { requests } = (await (await fetch(`${url}/bedrock/__sim/requests`)).json()) as { requests: SignedRequest[] };
  t.is(requests.length, 1);
  t.is(requests[0]!.path, `/bedrock/model/${encodeURIComponent(claude)}/converse`);
  t.deepEqual(sigV4Problems(requests[0]!, { ...credentials, region: 'eu-central-1' }), []);
  // The same request, checked against another secret or region, is refused by the helper.
  t.deepEqual(sigV4Problems(requests[0]!, { ...credentials, secretAccessKey: 'another', region: 'eu-central-1' }), ['the signature does not match']);
  t.deepEqual(sigV4Problems(requests[0]!, { ...credentials, region: 'us-east-1' }), ['signed for region eu-central-1']);
});
