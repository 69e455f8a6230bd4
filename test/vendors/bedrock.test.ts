// The bedrock adapter against Bedrock's published wire: Converse request bodies (messages,
// system, inferenceConfig, toolConfig, additionalModelRequestFields.thinking, cachePoint),
// ConverseStream events (messageStart, contentBlockStart/Delta/Stop with text, toolUse and
// reasoningContent, messageStop, metadata — as in AWS's API reference and its examples), the
// binary event-stream framing they come in, AWS error answers, and the SigV4 signature.
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import { EventStreamCodec } from '@smithy/core/event-streams';
import test from 'ava';
import { bedrockChatAdapter } from '../../src/vendors/bedrock/chat.js';
import { signBedrockRequest } from '../../src/vendors/bedrock/signing.js';
import { bedrockVendor } from '../../src/vendors/bedrock/vendor.js';
import { createFramer } from '../../src/vendors/shared/stream-framing.js';
import type { CredentialSource } from '../../src/vendors/shared/http-transport.js';
import { UpstreamError, type SseEvent, type UpstreamTarget } from '../../src/vendors/types.js';
import { sigV4Problems } from '../helpers/sigv4.js';
import { chatRequest, describeError, parseEvents, upstreamTarget } from './fixtures.js';
import { streamViolations } from './stream-invariants.js';

const claude = 'us.anthropic.claude-sonnet-4-20250514-v1:0';

const defaultTarget: UpstreamTarget = {
  model: claude,
  baseUrl: bedrockVendor.defaultBaseUrl!,
  capabilities: { reasoningEfforts: ['low', 'medium', 'high'], canDisableReasoning: true, vision: true, tools: true, maxOutputTokens: 64000 },
  maxOutputTokens: 8000,
  search: false,
  settings: { region: 'eu-central-1' },
};

const target = (fields: Partial<UpstreamTarget> = {}) => upstreamTarget(defaultTarget, fields);
const build = (fields: Parameters<typeof chatRequest>[0], targetFields: Partial<UpstreamTarget> = {}) => bedrockChatAdapter.buildRequest(chatRequest(fields), target(targetFields));
const event = (name: string, payload: Record<string, unknown>): SseEvent => ({ event: name, data: JSON.stringify(payload) });

// ---------------------------------------------------------------- requests

test('a plain request: the region endpoint, the inference profile id encoded in the path, inferenceConfig, cache points on Claude', (t) => {
  const built = build({
    system: [{ type: 'text', text: 'You are terse.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    temperature: 0.5,
    topP: 0.9,
    stop: ['END'],
  });
  t.is(built.url, 'https://bedrock-runtime.eu-central-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream');
  t.deepEqual(built.headers, { 'content-type': 'application/json', accept: 'application/vnd.amazon.eventstream' });
  t.deepEqual(built.body, {
    messages: [{ role: 'user', content: [{ text: 'Hello' }] }],
    system: [{ text: 'You are terse.' }, { cachePoint: { type: 'default' } }],
    inferenceConfig: { maxTokens: 8000, temperature: 0.5, topP: 0.9, stopSequences: ['END'] },
    additionalModelResponseFieldPaths: ['/stop_sequence'],
  });
});

test('a configured base_url (a simulator, a VPC endpoint) is used as given', (t) => {
  const built = build({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] }, { baseUrl: 'http://127.0.0.1:9000/bedrock', model: 'amazon.nova-pro-v1:0' });
  t.is(built.url, 'http://127.0.0.1:9000/bedrock/model/amazon.nova-pro-v1%3A0/converse-stream');
});

test('Llama and Mistral get no cache points; consecutive turns merge; images go up as bytes', (t) => {
  const built = build(
    {
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Look:' }] },
        { role: 'user', content: [{ type: 'image', url: 'data:image/jpeg;base64,/9j/4AAQ' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'A cat.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Sure?' }, { type: 'text', text: '' }] },
      ],
    },
    { model: 'meta.llama3-3-70b-instruct-v1:0' },
  );
  t.deepEqual(built.body, {
    messages: [
      { role: 'user', content: [{ text: 'Look:' }, { image: { format: 'jpeg', source: { bytes: '/9j/4AAQ' } } }] },
      { role: 'assistant', content: [{ text: 'A cat.' }] },
      { role: 'user', content: [{ text: 'Sure?' }] },
    ],
    system: [{ text: 'Be brief.' }],
    inferenceConfig: { maxTokens: 8000 },
  });
});

test('Nova caches the conversation prefix: a cache point after the user turn before the last', (t) => {
  const built = build(
    {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'One' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Two' }] },
        { role: 'user', content: [{ type: 'text', text: 'Three' }] },
      ],
    },
    { model: 'amazon.nova-lite-v1:0' },
  );
  t.deepEqual(built.body.messages, [
    { role: 'user', content: [{ text: 'One' }, { cachePoint: { type: 'default' } }] },
    { role: 'assistant', content: [{ text: 'Two' }] },
    { role: 'user', content: [{ text: 'Three' }] },
  ]);
});

test('a remote image URL is refused before anything is sent: Converse takes bytes only', (t) => {
  const error = t.throws(() => build({ messages: [{ role: 'user', content: [{ type: 'image', url: 'https://example.com/cat.png' }] }] }));
  t.true(error instanceof UpstreamError);
  t.like(describeError(error), { status: 400, retryable: false });
});

test('tools, a tool turn with its signed reasoning, and its result: toolConfig, toolUse, reasoningContent, toolResult first; thinking from the effort', (t) => {
  const built = build({
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'I should call the tool.', signature: 'c2lnbmF0dXJl' },
          { type: 'tool_call', id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather', arguments: '{"city":"Paris"}' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Here you go.' },
          { type: 'tool_result', toolCallId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', content: [{ type: 'text', text: '18 C' }] },
        ],
      },
    ],
    tools: [{ name: 'get_weather', description: 'Current weather', parameters: { properties: { city: { type: 'string' } }, required: ['city'] } }],
    toolChoice: { type: 'auto' },
    reasoningEffort: 'low',
    temperature: 0.2,
  });
  t.deepEqual(built.body, {
    messages: [
      { role: 'user', content: [{ text: 'Weather in Paris?' }, { cachePoint: { type: 'default' } }] },
      {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'I should call the tool.', signature: 'c2lnbmF0dXJl' } } },
          { toolUse: { toolUseId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather', input: { city: 'Paris' } } },
        ],
      },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', content: [{ text: '18 C' }] } }, { text: 'Here you go.' }] },
    ],
    toolConfig: {
      tools: [
        { toolSpec: { name: 'get_weather', description: 'Current weather', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } } },
        { cachePoint: { type: 'default' } },
      ],
      toolChoice: { auto: {} },
    },
    // Temperature is left out while Claude thinks.
    inferenceConfig: { maxTokens: 8000 },
    // low: the shared table's 2048 (model/reasoning.ts).
    additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 } },
  });
});

test('thinking: off is disabled, a forced tool goes without, a model without efforts gets none, and no budget fits a small max', (t) => {
  const ask = { messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hi' }] }] };
  t.deepEqual(build({ ...ask, reasoningEffort: 'off' }).body.additionalModelRequestFields, { thinking: { type: 'disabled' } });
  const tools = [{ name: 'lookup', parameters: {} }];
  t.is(build({ ...ask, tools, toolChoice: { type: 'required' }, reasoningEffort: 'high' }).body.additionalModelRequestFields, undefined);
  t.deepEqual((build({ ...ask, tools, toolChoice: { type: 'required' } }).body.toolConfig as { toolChoice: unknown }).toolChoice, { any: {} });
  t.deepEqual((build({ ...ask, tools, toolChoice: { type: 'tool', name: 'lookup' } }).body.toolConfig as { toolChoice: unknown }).toolChoice, { tool: { name: 'lookup' } });
  t.is(build({ ...ask, reasoningEffort: 'high' }, { model: 'mistral.mistral-large-2407-v1:0' }).body.additionalModelRequestFields, undefined);
  t.is(build({ ...ask, reasoningEffort: 'high' }, { maxOutputTokens: 1000 }).body.additionalModelRequestFields, undefined);
});

test('tool_choice none: no toolConfig, unless the conversation already holds tool blocks (Converse then wants one, without a choice)', (t) => {
  const tools = [{ name: 'lookup', parameters: { properties: {} } }];
  t.is(build({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], tools, toolChoice: { type: 'none' } }).body.toolConfig, undefined);
  const withHistory = build({
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'tool_call', id: 't1', name: 'lookup', arguments: 'not json' }] },
      { role: 'user', content: [{ type: 'tool_result', toolCallId: 't1', content: [], isError: true }] },
    ],
    tools,
    toolChoice: { type: 'none' },
  });
  t.deepEqual(withHistory.body.toolConfig, { tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object', properties: {} } } } }, { cachePoint: { type: 'default' } }] });
  t.deepEqual((withHistory.body.messages as unknown[])[1], { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'lookup', input: {} } }] });
  t.deepEqual((withHistory.body.messages as { content: unknown[] }[])[2]!.content[0], { toolResult: { toolUseId: 't1', content: [{ text: '(empty)' }], status: 'error' } });
});

test('structured output: a forced tool whose input is the answer; documents go up as named bytes', (t) => {
  const built = build(
    {
      messages: [{ role: 'user', content: [{ type: 'document', title: 'Q3 report.pdf', source: { type: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' } }, { type: 'document', source: { type: 'text', text: 'plain' } }] }],
      responseFormat: { type: 'json_schema', name: 'answer', schema: { properties: { total: { type: 'number' } } } },
    },
    { model: 'mistral.mistral-large-2407-v1:0' },
  );
  t.deepEqual(built.body, {
    messages: [
      {
        role: 'user',
        content: [
          { document: { format: 'pdf', name: 'Q3 report pdf 1', source: { bytes: 'JVBERi0=' } } },
          { document: { format: 'txt', name: 'document 2', source: { bytes: Buffer.from('plain').toString('base64') } } },
        ],
      },
    ],
    toolConfig: {
      tools: [{ toolSpec: { name: 'structured_output', description: "Give your final answer as this tool's input.", inputSchema: { json: { type: 'object', properties: { total: { type: 'number' } } } } } }],
      toolChoice: { tool: { name: 'structured_output' } },
    },
    inferenceConfig: { maxTokens: 8000 },
  });
});

// ---------------------------------------------------------------- streams

test('stream: text, as in AWS\'s ConverseStream example (no block start for text; usage in metadata after messageStop)', (t) => {
  const { parts, error } = parseEvents(bedrockChatAdapter, target(), [
    event('messageStart', { role: 'assistant', p: 'abcd' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' }, p: 'abcdefgh' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: '! How can I help?' } }),
    event('contentBlockStop', { contentBlockIndex: 0 }),
    event('messageStop', { stopReason: 'end_turn' }),
    event('metadata', { usage: { inputTokens: 12, outputTokens: 9, totalTokens: 21 }, metrics: { latencyMs: 410 } }),
  ]);
  t.is(error, undefined);
  t.deepEqual(parts, [
    { type: 'start', id: '', model: claude },
    { type: 'text_start', index: 0 },
    { type: 'text_delta', index: 0, text: 'Hello' },
    { type: 'text_delta', index: 0, text: '! How can I help?' },
    { type: 'text_end', index: 0 },
    { type: 'usage', usage: { inputTokens: 12, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 9, reasoningTokens: 0 } },
    { type: 'finish', finishReason: 'stop', rawFinishReason: 'end_turn' },
  ]);
  t.deepEqual(streamViolations(parts), []);
});

test('stream: Claude reasoning with its signature, redacted reasoning, then a tool call', (t) => {
  const { parts, error } = parseEvents(bedrockChatAdapter, target(), [
    event('messageStart', { role: 'assistant' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'The user wants ' } } }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'the weather.' } } }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'EqoBCkgIARABGAIiQ' } } }),
    event('contentBlockStop', { contentBlockIndex: 0 }),
    event('contentBlockDelta', { contentBlockIndex: 1, delta: { reasoningContent: { redactedContent: 'RXFvQkNrZ0lB' } } }),
    event('contentBlockStop', { contentBlockIndex: 1 }),
    event('contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather' } } }),
    event('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"city":' } } }),
    event('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '"Paris"}' } } }),
    event('contentBlockStop', { contentBlockIndex: 2 }),
    event('messageStop', { stopReason: 'tool_use' }),
    event('metadata', { usage: { inputTokens: 420, outputTokens: 96, totalTokens: 516 }, metrics: { latencyMs: 1830 } }),
  ]);
  t.is(error, undefined);
  t.deepEqual(parts, [
    { type: 'start', id: '', model: claude },
    { type: 'reasoning_start', index: 0 },
    { type: 'reasoning_delta', index: 0, text: 'The user wants ' },
    { type: 'reasoning_delta', index: 0, text: 'the weather.' },
    { type: 'reasoning_signature', index: 0, signature: 'EqoBCkgIARABGAIiQ' },
    { type: 'reasoning_end', index: 0 },
    { type: 'redacted_reasoning', index: 1, data: 'RXFvQkNrZ0lB' },
    { type: 'tool_call_start', index: 2, id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather' },
    { type: 'tool_call_delta', index: 2, argumentsDelta: '{"city":' },
    { type: 'tool_call_delta', index: 2, argumentsDelta: '"Paris"}' },
    { type: 'tool_call_end', index: 2 },
    { type: 'usage', usage: { inputTokens: 420, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 96, reasoningTokens: 0 } },
    { type: 'finish', finishReason: 'tool_calls', rawFinishReason: 'tool_use' },
  ]);
  t.deepEqual(streamViolations(parts), []);
});

test('stream: cache reads and writes are counted apart from inputTokens; the stop sequence Claude names is kept', (t) => {
  const { parts } = parseEvents(bedrockChatAdapter, target(), [
    event('messageStart', { role: 'assistant' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Cached.' } }),
    event('contentBlockStop', { contentBlockIndex: 0 }),
    event('messageStop', { stopReason: 'stop_sequence', additionalModelResponseFields: { stop_sequence: 'END' } }),
    event('metadata', { usage: { inputTokens: 3, outputTokens: 5, totalTokens: 12296, cacheReadInputTokens: 10240, cacheWriteInputTokens: 2048 }, metrics: { latencyMs: 300 } }),
  ]);
  t.deepEqual(parts.slice(-2), [
    { type: 'usage', usage: { inputTokens: 12291, cachedInputTokens: 10240, cacheWriteInputTokens: 2048, outputTokens: 5, reasoningTokens: 0 } },
    { type: 'finish', finishReason: 'stop', rawFinishReason: 'stop_sequence', stopSequence: 'END' },
  ]);
});

test('stream: finish reasons — max_tokens is length, guardrail_intervened a content filter, malformed_tool_use an error', (t) => {
  const finishOf = (stopReason: string) =>
    parseEvents(bedrockChatAdapter, target(), [event('messageStart', { role: 'assistant' }), event('messageStop', { stopReason }), event('metadata', { usage: { inputTokens: 1, outputTokens: 1 } })]).parts.at(-1);
  t.like(finishOf('max_tokens'), { finishReason: 'length' });
  t.like(finishOf('model_context_window_exceeded'), { finishReason: 'length' });
  t.like(finishOf('guardrail_intervened'), { finishReason: 'content_filter' });
  t.like(finishOf('content_filtered'), { finishReason: 'content_filter' });
  t.like(finishOf('malformed_tool_use'), { finishReason: 'error' });
});

test('stream: the structured-output tool comes back as text, its tool_use stop a normal stop', (t) => {
  const request = chatRequest({ responseFormat: { type: 'json_object' } });
  const { parts } = parseEvents(
    bedrockChatAdapter,
    target(),
    [
      event('messageStart', { role: 'assistant' }),
      event('contentBlockStart', { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_1', name: 'structured_output' } } }),
      event('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{"a":1}' } } }),
      event('contentBlockStop', { contentBlockIndex: 0 }),
      event('messageStop', { stopReason: 'tool_use' }),
      event('metadata', { usage: { inputTokens: 10, outputTokens: 4 } }),
    ],
    request,
  );
  t.deepEqual(parts, [
    { type: 'start', id: '', model: claude },
    { type: 'text_start', index: 0 },
    { type: 'text_delta', index: 0, text: '{"a":1}' },
    { type: 'text_end', index: 0 },
    { type: 'usage', usage: { inputTokens: 10, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 4, reasoningTokens: 0 } },
    { type: 'finish', finishReason: 'stop', rawFinishReason: 'tool_use' },
  ]);
});

test('stream: cut before messageStop is an error; after it, without metadata, the answer is whole (usage then estimated)', (t) => {
  const cut = parseEvents(bedrockChatAdapter, target(), [event('messageStart', { role: 'assistant' }), event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hal' } })]);
  t.true(cut.error instanceof UpstreamError);
  t.deepEqual(cut.parts.at(-1), { type: 'text_delta', index: 0, text: 'Hal' });
  const whole = parseEvents(bedrockChatAdapter, target(), [
    event('messageStart', { role: 'assistant' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Done' } }),
    event('messageStop', { stopReason: 'end_turn' }),
  ]);
  t.is(whole.error, undefined);
  t.deepEqual(whole.parts.slice(-2), [{ type: 'text_end', index: 0 }, { type: 'finish', finishReason: 'stop', rawFinishReason: 'end_turn' }]);
});

// ---------------------------------------------------------------- the event-stream framing

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const message = (headers: Record<string, string>, payload: unknown) =>
  Buffer.from(codec.encode({ headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, { type: 'string' as const, value }])), body: fromUtf8(JSON.stringify(payload)) }));
const eventBytes = (type: string, payload: unknown) => message({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' }, payload);

function frame(chunks: readonly Buffer[]): { events: SseEvent[]; error?: unknown } {
  const events: SseEvent[] = [];
  const framer = createFramer('aws-eventstream', (next) => events.push(next));
  try {
    for (const chunk of chunks) framer.feed(chunk);
    framer.end();
  } catch (error) {
    return { events, error };
  }
  return { events };
}

test('aws-eventstream framing: messages split anywhere become { event, data } in order', (t) => {
  const body = Buffer.concat([eventBytes('messageStart', { role: 'assistant' }), eventBytes('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Привет' } }), eventBytes('messageStop', { stopReason: 'end_turn' })]);
  const expected = [
    { event: 'messageStart', data: '{"role":"assistant"}' },
    { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"Привет"}}' },
    { event: 'messageStop', data: '{"stopReason":"end_turn"}' },
  ];
  t.deepEqual(frame([body]).events, expected);
  // Byte by byte, and in pieces that cut through preludes, headers and multi-byte characters.
  t.deepEqual(frame([...body].map((byte) => Buffer.from([byte]))).events, expected);
  t.deepEqual(frame([body.subarray(0, 5), body.subarray(5, 70), body.subarray(70)]).events, expected);
});

test('aws-eventstream framing: an exception message is the UpstreamError it names; a corrupt message is a broken stream', (t) => {
  const throttled = frame([eventBytes('messageStart', { role: 'assistant' }), message({ ':exception-type': 'throttlingException', ':content-type': 'application/json', ':message-type': 'exception' }, { message: 'Too many tokens, please wait before trying again.' })]);
  t.is(throttled.events.length, 1);
  t.deepEqual(describeError(throttled.error), { message: 'Too many tokens, please wait before trying again.', status: 429, retryable: true, upstreamType: 'throttlingException' });
  const validation = frame([message({ ':exception-type': 'validationException', ':message-type': 'exception' }, { message: 'bad' })]);
  t.like(describeError(validation.error), { status: 400, retryable: false, upstreamType: 'validationException' });
  const corrupt = eventBytes('messageStart', { role: 'assistant' });
  corrupt[corrupt.length - 6] ^= 0xff;
  t.like(describeError(frame([corrupt]).error), { retryable: false, upstreamType: 'invalid_stream' });
});

// ---------------------------------------------------------------- errors

test('AWS error answers: the type from x-amzn-errortype, the message from the body; 429 and 5xx retryable, 403 not', (t) => {
  const parse = (status: number, type: string | undefined, body: unknown) =>
    describeError(bedrockChatAdapter.parseError(status, typeof body === 'string' ? body : JSON.stringify(body), type === undefined ? {} : { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` }));
  t.deepEqual(parse(400, 'ValidationException', { message: 'The provided model identifier is invalid.' }), {
    message: 'ValidationException: The provided model identifier is invalid.',
    status: 400,
    retryable: false,
    upstreamType: 'ValidationException',
  });
  t.like(parse(403, 'AccessDeniedException', { message: "You don't have access to the model with the specified model ID." }), { status: 403, retryable: false, upstreamType: 'AccessDeniedException' });
  t.like(parse(403, 'UnrecognizedClientException', { message: 'The security token included in the request is invalid.' }), { status: 403, retryable: false, upstreamType: 'UnrecognizedClientException' });
  t.like(parse(429, 'ModelNotReadyException', { message: 'Model is not ready for inference.' }), { status: 429, retryable: true, upstreamType: 'ModelNotReadyException' });
  t.like(parse(500, 'InternalServerException', { message: 'The system encountered an unexpected error.' }), { status: 500, retryable: true });
  t.like(parse(503, 'ServiceUnavailableException', { message: 'Bedrock is unable to process your request.' }), { status: 503, retryable: true });
  t.like(parse(400, undefined, { __type: 'com.amazon.coral.validate#ValidationException', message: 'x' }), { upstreamType: 'ValidationException' });
  t.like(parse(502, undefined, '<html>Bad Gateway</html>'), { message: '<html>Bad Gateway</html>', status: 502, retryable: true });
});

test('a throttled route cools down: Retry-After when sent, else a fixed while (Bedrock sends none)', (t) => {
  const throttled = bedrockChatAdapter.parseError(429, '{"message":"Too many requests, please wait before trying again."}', { 'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/' });
  t.is(throttled.retryAfterMs, 3000);
  t.is(bedrockChatAdapter.parseError(429, '{}', { 'retry-after': '7' }).retryAfterMs, 7000);
  t.is(bedrockChatAdapter.parseError(500, '{}', {}).retryAfterMs, undefined);
});

// ---------------------------------------------------------------- signing

function source(secrets: Record<string, string | undefined>, apiKey?: string): CredentialSource {
  return { name: 'aws', baseUrl: defaultTarget.baseUrl, settings: { region: 'eu-central-1' }, secrets, timeoutMs: 1000, dispatcher: undefined as never, ...(apiKey ? { apiKey } : {}) };
}

test('SigV4: the request is signed for service bedrock in the provider\'s region, over its exact body', async (t) => {
  const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] });
  const url = 'https://bedrock-runtime.eu-central-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream';
  const headers = { 'content-type': 'application/json', accept: 'application/vnd.amazon.eventstream' };
  const keys = { access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
  const signed = await signBedrockRequest({ method: 'POST', url, headers, body }, source(keys));
  t.is(signed.host, 'bedrock-runtime.eu-central-1.amazonaws.com');
  t.regex(signed.authorization!, /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-central-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/);
  const sent = { method: 'POST', path: new URL(url).pathname, headers: signed, body };
  t.deepEqual(sigV4Problems(sent, { accessKeyId: keys.access_key_id, secretAccessKey: keys.secret_access_key, region: 'eu-central-1' }), []);
  t.deepEqual(sigV4Problems({ ...sent, body: body.replace('Hi', 'Ho') }, { accessKeyId: keys.access_key_id, secretAccessKey: keys.secret_access_key, region: 'eu-central-1' }), ['the signature does not match']);

  const temporary = await signBedrockRequest({ method: 'POST', url, headers, body }, source({ ...keys, session_token: 'FwoGZXIvYXdzEXAMPLE' }));
  t.is(temporary['x-amz-security-token'], 'FwoGZXIvYXdzEXAMPLE');
  t.regex(temporary.authorization!, /SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,/);
});

test('without a key pair: a Bedrock API key as a bearer token, else a 401 that is not retried', async (t) => {
  const request = { method: 'POST', url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse-stream', headers: {}, body: '{}' };
  t.deepEqual(await signBedrockRequest(request, source({}, 'ABSKQmVkcm9ja0FQSUtleQ')), { authorization: 'Bearer ABSKQmVkcm9ja0FQSUtleQ' });
  const error = await t.throwsAsync(signBedrockRequest(request, source({ access_key_id: 'AKIA' })));
  t.like(describeError(error), { status: 401, retryable: false, upstreamType: 'missing_credentials' });
});
