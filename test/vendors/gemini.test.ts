// The `gemini` adapter against the shapes of Google's published Gemini API reference
// (generateContent / streamGenerateContent request and response, usageMetadata,
// groundingMetadata, thought signatures, the google.rpc error body) and Vertex AI's paths.
import { createVerify, generateKeyPairSync } from 'node:crypto';
import test from 'ava';
import type { AssistantContentPart, ChatRequest, StreamPart } from '../../src/model/chat.js';
import { geminiChatAdapter } from '../../src/vendors/gemini/chat.js';
import { geminiEmbeddingsOperation } from '../../src/vendors/gemini/embeddings.js';
import { parseServiceAccount, signedAssertion } from '../../src/vendors/gemini/vertex-token.js';
import { UpstreamError, type SseEvent, type UpstreamTarget } from '../../src/vendors/types.js';
import { chatRequest, parseEvents } from './fixtures.js';
import { streamViolations } from './stream-invariants.js';

const target: UpstreamTarget = {
  model: 'gemini-2.5-flash',
  baseUrl: 'https://generativelanguage.googleapis.com',
  apiKey: 'AIza-test',
  capabilities: { reasoningEfforts: ['off', 'low', 'medium', 'high'], canDisableReasoning: true, vision: true, tools: true, maxOutputTokens: 65536 },
  maxOutputTokens: 16000,
  search: false,
};
const plainTarget: UpstreamTarget = { ...target, model: 'gemini-2.0-flash', capabilities: { ...target.capabilities, reasoningEfforts: [], canDisableReasoning: false } };

const sse = (...chunks: unknown[]): SseEvent[] => chunks.map((chunk) => ({ data: JSON.stringify(chunk) }));
const parse = (events: SseEvent[], request: ChatRequest = chatRequest({})) => parseEvents(geminiChatAdapter, target, events, request);

test('request: URL, key header, system, turns, image, stop, sampling, output budget', (t) => {
  const built = geminiChatAdapter.buildRequest(
    chatRequest({
      system: [{ type: 'text', text: 'You are a cat.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Meow.' }] },
        { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', mediaType: 'image/jpeg', data: '/9j/4AAQ' }, { type: 'image', url: 'https://example.com/cat.png' }] },
      ],
      stop: ['END'],
      temperature: 0.5,
      topP: 0.9,
    }),
    plainTarget,
  );
  t.is(built.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
  t.deepEqual(built.headers, { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test' });
  t.deepEqual(built.body, {
    contents: [
      { role: 'user', parts: [{ text: 'Hello' }] },
      { role: 'model', parts: [{ text: 'Meow.' }] },
      { role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } }, { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/cat.png' } }] },
    ],
    systemInstruction: { parts: [{ text: 'You are a cat.' }] },
    generationConfig: { maxOutputTokens: 16000, stopSequences: ['END'], temperature: 0.5, topP: 0.9 },
  });
});

test('request: tools, forced tool, function call and response turns, structured output', (t) => {
  const built = geminiChatAdapter.buildRequest(
    chatRequest({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { type: 'tool_call', id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', toolCallId: 'call_a', content: [{ type: 'text', text: '18C' }] },
            { type: 'tool_result', toolCallId: 'call_b', content: [{ type: 'text', text: 'no data' }], isError: true },
          ],
        },
      ],
      tools: [{ name: 'get_weather', description: 'Weather of a city', parameters: { properties: { city: { type: 'string' } }, required: ['city'] } }],
      toolChoice: { type: 'tool', name: 'get_weather' },
      responseFormat: { type: 'json_schema', name: 'report', schema: { type: 'object', properties: { summary: { type: 'string' } } } },
    }),
    plainTarget,
  );
  t.deepEqual(built.body, {
    contents: [
      { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }, { functionCall: { name: 'get_weather', args: {} } }] },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'get_weather', response: { result: '18C' } } }, { functionResponse: { name: 'get_weather', response: { error: 'no data' } } }],
      },
    ],
    tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather of a city', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }] }],
    toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
    generationConfig: { maxOutputTokens: 16000, responseMimeType: 'application/json', responseJsonSchema: { type: 'object', properties: { summary: { type: 'string' } } } },
  });
  const choice = (toolChoice: ChatRequest['toolChoice']) =>
    geminiChatAdapter.buildRequest(chatRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], tools: [{ name: 'f', parameters: {} }], toolChoice }), plainTarget).body.toolConfig;
  t.deepEqual(choice({ type: 'auto' }), { functionCallingConfig: { mode: 'AUTO' } });
  t.deepEqual(choice({ type: 'none' }), { functionCallingConfig: { mode: 'NONE' } });
  t.deepEqual(choice({ type: 'required' }), { functionCallingConfig: { mode: 'ANY' } });
  t.is(choice(undefined), undefined);
  const jsonObject = geminiChatAdapter.buildRequest(chatRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], responseFormat: { type: 'json_object' } }), plainTarget).body;
  t.deepEqual(jsonObject.generationConfig, { maxOutputTokens: 16000, responseMimeType: 'application/json' });
});

test('request: thinking budgets on 2.5, levels on 3, none on a model that does not reason', (t) => {
  const config = (request: Partial<ChatRequest>, on: UpstreamTarget) =>
    (geminiChatAdapter.buildRequest(chatRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], ...request }), on).body.generationConfig as Record<string, unknown>).thinkingConfig;
  t.deepEqual(config({ reasoningEffort: 'medium' }, target), { thinkingBudget: 8192, includeThoughts: true });
  t.deepEqual(config({ reasoningEffort: 'high' }, target), { thinkingBudget: 15999, includeThoughts: true }, 'kept below the output budget');
  t.deepEqual(config({ reasoningEffort: 'off' }, target), { thinkingBudget: 0 });
  t.deepEqual(config({}, target), { includeThoughts: true });
  const gemini3 = { ...target, model: 'gemini-3-pro-preview' };
  t.deepEqual(config({ reasoningEffort: 'low' }, gemini3), { thinkingLevel: 'low', includeThoughts: true });
  t.deepEqual(config({ reasoningEffort: 'max' }, gemini3), { thinkingLevel: 'high', includeThoughts: true });
  t.deepEqual(config({ reasoningEffort: 'high' }, plainTarget), undefined);
});

test('request: a search model gets the google_search tool; documents go up as inlineData and text', (t) => {
  const built = geminiChatAdapter.buildRequest(
    chatRequest({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'document', source: { type: 'base64', mediaType: 'application/pdf', data: 'JVBERi0x' } },
            { type: 'document', source: { type: 'text', text: 'Body' }, title: 'Notes' },
            { type: 'text', text: 'Who won?' },
          ],
        },
      ],
    }),
    { ...plainTarget, search: true },
  );
  t.deepEqual(built.body.tools, [{ google_search: {} }]);
  t.deepEqual((built.body.contents as { parts: unknown[] }[])[0]!.parts, [{ inlineData: { mimeType: 'application/pdf', data: 'JVBERi0x' } }, { text: 'Notes\n\nBody' }, { text: 'Who won?' }]);
});

test('request: Vertex mode addresses the region\'s publisher model with a Bearer token', (t) => {
  const vertex = { ...plainTarget, apiKey: 'ya29.token', settings: { auth: 'vertex', project: 'my-project', location: 'europe-west4' } };
  const built = geminiChatAdapter.buildRequest(chatRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }), vertex);
  t.is(built.url, 'https://europe-west4-aiplatform.googleapis.com/v1/projects/my-project/locations/europe-west4/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
  t.deepEqual(built.headers, { 'content-type': 'application/json', authorization: 'Bearer ya29.token' });
  const proxied = geminiChatAdapter.buildRequest(chatRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }), { ...vertex, baseUrl: 'http://127.0.0.1:9/gemini', settings: { auth: 'vertex', project: 'p' } });
  t.is(proxied.url, 'http://127.0.0.1:9/gemini/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
  const global = geminiChatAdapter.buildRequest(chatRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }), { ...vertex, settings: { auth: 'vertex', project: 'p', location: 'global' } });
  t.is(global.url, 'https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
});

test('stream: text in chunks, usage from the last chunk that carries it, STOP', (t) => {
  const { parts, error } = parse(
    sse(
      { candidates: [{ content: { parts: [{ text: 'The' }], role: 'model' }, index: 0 }], usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 }, modelVersion: 'gemini-2.5-flash', responseId: 'resp-1' },
      { candidates: [{ content: { parts: [{ text: ' sky is blue.' }], role: 'model' }, index: 0 }], usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 }, modelVersion: 'gemini-2.5-flash', responseId: 'resp-1' },
      {
        candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 8, cachedContentTokenCount: 4, candidatesTokenCount: 5, thoughtsTokenCount: 12, totalTokenCount: 25 },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'resp-1',
      },
    ),
  );
  t.is(error, undefined);
  const partial = { inputTokens: 8, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 0, reasoningTokens: 0 };
  t.deepEqual(parts, [
    { type: 'start', id: 'resp-1', model: 'gemini-2.5-flash' },
    { type: 'text_start', index: 0 },
    { type: 'text_delta', index: 0, text: 'The' },
    { type: 'usage', usage: partial },
    { type: 'text_delta', index: 0, text: ' sky is blue.' },
    { type: 'usage', usage: partial },
    { type: 'usage', usage: { inputTokens: 8, cachedInputTokens: 4, cacheWriteInputTokens: 0, outputTokens: 17, reasoningTokens: 12 } },
    { type: 'text_end', index: 0 },
    { type: 'finish', finishReason: 'stop', rawFinishReason: 'STOP' },
  ]);
  t.deepEqual(streamViolations(parts), []);
});

test('stream: thoughts, parallel function calls with a signature, and back up unchanged', (t) => {
  const { parts, error } = parse(
    sse(
      { candidates: [{ content: { parts: [{ text: 'Thinking about the cities', thought: true }], role: 'model' }, index: 0 }], responseId: 'r2' },
      {
        candidates: [
          {
            content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnbmF0dXJl' }, { functionCall: { name: 'get_weather', args: { city: 'Rome' } } }], role: 'model' },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 20, thoughtsTokenCount: 40, totalTokenCount: 90 },
        responseId: 'r2',
      },
    ),
  );
  t.is(error, undefined);
  t.deepEqual(streamViolations(parts), []);
  const calls = parts.filter((part): part is Extract<StreamPart, { type: 'tool_call_start' }> => part.type === 'tool_call_start');
  t.is(calls.length, 2);
  t.regex(calls[0]!.id, /^call_[0-9a-f]{24}$/);
  t.not(calls[0]!.id, calls[1]!.id);
  t.deepEqual(
    parts.map((part) => part.type),
    ['start', 'reasoning_start', 'reasoning_delta', 'reasoning_end', 'reasoning_start', 'reasoning_signature', 'reasoning_end', 'tool_call_start', 'tool_call_delta', 'tool_call_end', 'tool_call_start', 'tool_call_delta', 'tool_call_end', 'usage', 'finish'],
  );
  t.deepEqual(parts.at(-1), { type: 'finish', finishReason: 'tool_calls', rawFinishReason: 'STOP' });
  t.deepEqual(parts.at(-2), { type: 'usage', usage: { inputTokens: 30, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 60, reasoningTokens: 40 } });

  // The assistant turn as a client sends it back: the signature goes up on the first call.
  const turn: AssistantContentPart[] = [
    { type: 'reasoning', text: 'Thinking about the cities' },
    { type: 'reasoning', text: '', signature: 'c2lnbmF0dXJl' },
    { type: 'tool_call', id: calls[0]!.id, name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'tool_call', id: calls[1]!.id, name: 'get_weather', arguments: '{"city":"Rome"}' },
  ];
  const back = geminiChatAdapter.buildRequest(chatRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather?' }] }, { role: 'assistant', content: turn }] }), target);
  t.deepEqual((back.body.contents as unknown[])[1], {
    role: 'model',
    parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnbmF0dXJl' }, { functionCall: { name: 'get_weather', args: { city: 'Rome' } } }],
  });
});

test('stream: a signed last text part keeps the text one block; the signature goes back on an empty text part', (t) => {
  const { parts } = parse(
    sse(
      { candidates: [{ content: { parts: [{ text: 'Hi' }], role: 'model' }, index: 0 }] },
      { candidates: [{ content: { parts: [{ text: '', thoughtSignature: 'dGV4dHNpZw==' }], role: 'model' }, finishReason: 'STOP', index: 0 }] },
    ),
  );
  t.deepEqual(parts.slice(1), [
    { type: 'text_start', index: 0 },
    { type: 'text_delta', index: 0, text: 'Hi' },
    { type: 'text_end', index: 0 },
    { type: 'reasoning_start', index: 1 },
    { type: 'reasoning_signature', index: 1, signature: 'dGV4dHNpZw==' },
    { type: 'reasoning_end', index: 1 },
    { type: 'finish', finishReason: 'stop', rawFinishReason: 'STOP' },
  ]);
  const back = geminiChatAdapter.buildRequest(
    chatRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }, { role: 'assistant', content: [{ type: 'text', text: 'Hi' }, { type: 'reasoning', text: '', signature: 'dGV4dHNpZw==' }] }, { role: 'user', content: [{ type: 'text', text: 'y' }] }] }),
    target,
  );
  t.deepEqual((back.body.contents as unknown[])[1], { role: 'model', parts: [{ text: 'Hi' }, { text: '', thoughtSignature: 'dGV4dHNpZw==' }] });
});

test('request: Gemini 3 gets Google\'s placeholder signature on a call made elsewhere', (t) => {
  const built = geminiChatAdapter.buildRequest(
    chatRequest({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'x' }] },
        { role: 'assistant', content: [{ type: 'tool_call', id: 'toolu_1', name: 'f', arguments: '{}' }, { type: 'tool_call', id: 'toolu_2', name: 'g', arguments: '{}' }] },
        { role: 'user', content: [{ type: 'tool_result', toolCallId: 'toolu_1', content: [] }, { type: 'tool_result', toolCallId: 'toolu_2', content: [] }] },
      ],
    }),
    { ...target, model: 'gemini-3-pro-preview' },
  );
  t.deepEqual((built.body.contents as unknown[])[1], {
    role: 'model',
    parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }, { functionCall: { name: 'g', args: {} } }],
  });
});

test('stream: finish reasons — MAX_TOKENS, SAFETY, a blocked prompt, a malformed call', (t) => {
  const finishOf = (chunk: unknown) => parse(sse(chunk)).parts.at(-1);
  t.deepEqual(finishOf({ candidates: [{ content: { parts: [{ text: 'a' }] }, finishReason: 'MAX_TOKENS' }] }), { type: 'finish', finishReason: 'length', rawFinishReason: 'MAX_TOKENS' });
  t.deepEqual(finishOf({ candidates: [{ finishReason: 'SAFETY', safetyRatings: [] }] }), { type: 'finish', finishReason: 'content_filter', rawFinishReason: 'SAFETY' });
  t.deepEqual(finishOf({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } }), { type: 'finish', finishReason: 'content_filter', rawFinishReason: 'PROHIBITED_CONTENT' });
  t.deepEqual(finishOf({ candidates: [{ finishReason: 'MALFORMED_FUNCTION_CALL' }] }), { type: 'finish', finishReason: 'error', rawFinishReason: 'MALFORMED_FUNCTION_CALL' });
});

test('stream: grounding metadata becomes citations with character offsets, each once', (t) => {
  const grounding = {
    webSearchQueries: ['euro 2024 winner'],
    groundingChunks: [{ web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/a', title: 'uefa.com' } }, { web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/b', title: 'bbc.com' } }, { web: { uri: 'https://example.org/x', title: 'example.org' } }],
    groundingSupports: [{ segment: { startIndex: 8, endIndex: 38, text: 'Spain won Euro 2024 in Berlin.' }, groundingChunkIndices: [0, 1] }],
  };
  const { parts } = parse(
    sse(
      { candidates: [{ content: { parts: [{ text: 'Олé! ' }, { text: 'Spain won Euro 2024 in Berlin.' }], role: 'model' } }] },
      { candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', groundingMetadata: grounding }] },
      { candidates: [{ content: { parts: [], role: 'model' }, groundingMetadata: grounding }] },
    ),
  );
  const citations = parts.filter((part) => part.type === 'citation');
  t.deepEqual(citations, [
    { type: 'citation', index: 0, citation: { url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/a', title: 'uefa.com', startIndex: 5, endIndex: 35, citedText: 'Spain won Euro 2024 in Berlin.' } },
    { type: 'citation', index: 0, citation: { url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/b', title: 'bbc.com', startIndex: 5, endIndex: 35, citedText: 'Spain won Euro 2024 in Berlin.' } },
    { type: 'citation', index: 0, citation: { url: 'https://example.org/x', title: 'example.org' } },
  ]);
  t.deepEqual(streamViolations(parts), []);
});

test('stream: cut before any finishReason is an error; an error chunk throws Google\'s status', (t) => {
  const cut = parse(sse({ candidates: [{ content: { parts: [{ text: 'a' }] } }] }));
  t.true(cut.error instanceof UpstreamError);
  t.is((cut.error as UpstreamError).upstreamType, 'incomplete_stream');
  const failed = parse(sse({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }));
  t.like(failed.error, { message: 'The model is overloaded. Please try again later.', status: 0, retryable: true, upstreamType: 'UNAVAILABLE' });
  const invalid = parse(sse([{ error: { code: 400, message: 'Bad', status: 'INVALID_ARGUMENT' } }]));
  t.like(invalid.error, { retryable: false, upstreamType: 'INVALID_ARGUMENT' });
});

test('errors: 429 RESOURCE_EXHAUSTED with RetryInfo, 401/403 final, 400, 500, non-JSON', (t) => {
  const quota = geminiChatAdapter.parseError(
    429,
    JSON.stringify({
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests' }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '34s' },
        ],
      },
    }),
  );
  t.like(quota, { status: 429, retryable: true, upstreamType: 'RESOURCE_EXHAUSTED', retryAfterMs: 34_000 });
  t.like(geminiChatAdapter.parseError(400, JSON.stringify({ error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } })), { status: 400, retryable: false, upstreamType: 'INVALID_ARGUMENT', message: 'API key not valid. Please pass a valid API key.' });
  t.like(geminiChatAdapter.parseError(401, JSON.stringify({ error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } })), { retryable: false, upstreamType: 'UNAUTHENTICATED' });
  t.like(geminiChatAdapter.parseError(403, JSON.stringify([{ error: { code: 403, message: 'Permission denied', status: 'PERMISSION_DENIED' } }])), { retryable: false, upstreamType: 'PERMISSION_DENIED', message: 'Permission denied' });
  t.like(geminiChatAdapter.parseError(500, JSON.stringify({ error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } })), { retryable: true, upstreamType: 'INTERNAL' });
  t.like(geminiChatAdapter.parseError(502, '<html>Bad Gateway</html>'), { retryable: true, message: '<html>Bad Gateway</html>' });
});

test('embeddings: batchEmbedContents with outputDimensionality; usage read, or counted when absent', async (t) => {
  const request = { input: ['hello', 'мир'], dimensions: 3 };
  const embedTarget = { model: 'gemini-embedding-001', baseUrl: 'https://generativelanguage.googleapis.com', apiKey: 'AIza-test' };
  const built = geminiEmbeddingsOperation.build(request, embedTarget);
  t.is(built.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents');
  t.deepEqual(built.headers, { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test' });
  t.deepEqual(built.body, {
    json: {
      requests: [
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'hello' }] }, outputDimensionality: 3 },
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'мир' }] }, outputDimensionality: 3 },
      ],
    },
  });
  const answer = (body: unknown) => ({ status: 200, headers: {}, body: new TextEncoder().encode(JSON.stringify(body)) });
  const vectors = [{ values: [0.1, 0.2, 0.3] }, { values: [0.4, 0.5, 0.6] }];
  t.deepEqual(await geminiEmbeddingsOperation.parse(answer({ embeddings: vectors }), request, embedTarget), { vectors: [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], inputTokens: 2 + 2 });
  t.deepEqual(await geminiEmbeddingsOperation.parse(answer({ embeddings: vectors, usageMetadata: { promptTokenCount: 7 } }), request, embedTarget), { vectors: [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], inputTokens: 7 });
  await t.throwsAsync(async () => geminiEmbeddingsOperation.parse(answer({ embeddings: vectors.slice(1) }), request, embedTarget), { instanceOf: UpstreamError });
});

test('vertex: the assertion is an RS256 JWT with Google\'s claims, signed by the service account key', (t) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const account = parseServiceAccount(
    JSON.stringify({ type: 'service_account', client_email: 'gw@proj.iam.gserviceaccount.com', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }), private_key_id: 'k1', token_uri: 'https://oauth2.googleapis.com/token' }),
    'vertex',
  );
  const jwt = signedAssertion(account, 1_700_000_000);
  const [header, claims, signature] = jwt.split('.');
  t.deepEqual(JSON.parse(Buffer.from(header!, 'base64url').toString()), { alg: 'RS256', typ: 'JWT', kid: 'k1' });
  t.deepEqual(JSON.parse(Buffer.from(claims!, 'base64url').toString()), {
    iss: 'gw@proj.iam.gserviceaccount.com',
    sub: 'gw@proj.iam.gserviceaccount.com',
    aud: 'https://oauth2.googleapis.com/token',
    scope: 'https://www.googleapis.com/auth/cloud-platform',
    iat: 1_700_000_000,
    exp: 1_700_003_600,
  });
  t.true(createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(publicKey, Buffer.from(signature!, 'base64url')));
  t.throws(() => parseServiceAccount('{"client_email": "x"}', 'vertex'), { instanceOf: UpstreamError, message: /client_email and private_key/ });
});

test('images: Imagen :predict and a Gemini image model\'s generateContent, both read back as images', async (t) => {
  const { geminiImageGeneration, geminiImageEdit } = await import('../../src/vendors/gemini/images.js');
  const request = { prompt: 'A red fox', n: 2, size: '1536x1024', outputFormat: 'png' as const, images: [] };
  const imagen = { model: 'imagen-4.0-generate-001', baseUrl: 'https://generativelanguage.googleapis.com', apiKey: 'AIza-test' };
  const built = geminiImageGeneration.build(request, imagen);
  t.is(built.url, 'https://generativelanguage.googleapis.com/v1beta/models/imagen-4.0-generate-001:predict');
  t.deepEqual(built.body, { json: { instances: [{ prompt: 'A red fox' }], parameters: { sampleCount: 2, aspectRatio: '3:2' } } });
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
  const answer = (body: unknown) => ({ status: 200, headers: {}, body: new TextEncoder().encode(JSON.stringify(body)) });
  const images = await geminiImageGeneration.parse(answer({ predictions: [{ bytesBase64Encoded: png, mimeType: 'image/png' }, { raiFilteredReason: 'filtered' }] }), request, imagen);
  t.is(images.length, 1, 'a filtered image is left out');
  t.is(images[0]!.mediaType, 'image/png');
  await t.throwsAsync(async () => geminiImageGeneration.parse(answer({ predictions: [{ raiFilteredReason: 'filtered' }] }), request, imagen), { instanceOf: UpstreamError });

  const flashImage = { ...imagen, model: 'gemini-2.5-flash-image' };
  const edit = geminiImageEdit.build({ ...request, n: 1, size: undefined, aspectRatio: '16:9', resolution: '2k', images: [{ data: new Uint8Array([1, 2]), mediaType: 'image/png', filename: 'a.png' }] }, flashImage);
  t.is(edit.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash-image:generateContent');
  t.deepEqual(edit.body, {
    json: {
      contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AQI=' } }, { text: 'A red fox' }] }],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '16:9', imageSize: '2K' } },
    },
  });
  const generated = await geminiImageEdit.parse(answer({ candidates: [{ content: { parts: [{ text: 'Here it is' }, { inlineData: { mimeType: 'image/png', data: png } }] }, finishReason: 'STOP' }] }), request, flashImage);
  t.is(generated.length, 1);
  t.throws(() => geminiImageEdit.build({ ...request, images: [{ data: new Uint8Array([1]), mediaType: 'image/png', filename: 'a.png' }] }, imagen), { instanceOf: UpstreamError });
});

test('videos: Veo predictLongRunning, the operation\'s states, the download keyed only to Google\'s origin', async (t) => {
  const { geminiVideoOperations: video, videoShape } = await import('../../src/vendors/gemini/videos.js');
  const veo = { model: 'veo-3.0-fast-generate-001', baseUrl: 'https://generativelanguage.googleapis.com', apiKey: 'AIza-test' };
  const built = video.submit.build({ prompt: 'Waves', seconds: 8, size: '1920x1080', seed: 7 }, veo);
  t.is(built.url, 'https://generativelanguage.googleapis.com/v1beta/models/veo-3.0-fast-generate-001:predictLongRunning');
  t.deepEqual(built.body, { json: { instances: [{ prompt: 'Waves' }], parameters: { aspectRatio: '16:9', resolution: '1080p', durationSeconds: 8, seed: 7 } } });
  t.deepEqual(videoShape('720x1280'), { aspectRatio: '9:16', resolution: '720p' });
  const answer = (body: unknown) => ({ status: 200, headers: {}, body: new TextEncoder().encode(JSON.stringify(body)) });
  const name = 'models/veo-3.0-fast-generate-001/operations/abc123';
  t.deepEqual(await video.submit.parse(answer({ name }), { prompt: 'Waves', seconds: 8, size: '1920x1080' }, veo), { upstreamId: name });
  t.is(video.poll.build(name, veo).url, `https://generativelanguage.googleapis.com/v1beta/${name}`);
  t.deepEqual(await video.poll.parse(answer({ name, done: false }), name, veo), { state: 'running', raw: 'running' });
  const uri = 'https://generativelanguage.googleapis.com/v1beta/files/xyz:download?alt=media';
  t.deepEqual(await video.poll.parse(answer({ name, done: true, response: { generateVideoResponse: { generatedSamples: [{ video: { uri } }] } } }), name, veo), {
    state: 'completed',
    raw: 'done',
    assets: [{ url: uri, mediaType: 'video/mp4' }],
  });
  t.like(await video.poll.parse(answer({ name, done: true, error: { code: 400, message: 'blocked', status: 'INVALID_ARGUMENT' } }), name, veo), { state: 'failed', code: 'INVALID_ARGUMENT', message: 'blocked' });
  t.like(await video.poll.parse(answer({ name, done: true, response: { generateVideoResponse: { raiMediaFilteredReasons: ['unsafe'] } } }), name, veo), { state: 'failed', code: 'content_filter', message: 'unsafe' });
  t.deepEqual(video.download.build({ url: uri, mediaType: 'video/mp4' }, veo).headers, { 'x-goog-api-key': 'AIza-test' });
  t.deepEqual(video.download.build({ url: 'https://storage.googleapis.com/x.mp4', mediaType: 'video/mp4' }, veo).headers, {});
  t.throws(() => video.submit.build({ prompt: 'x', seconds: 4, size: '1280x720' }, { ...veo, settings: { auth: 'vertex', project: 'p' } }), { instanceOf: UpstreamError });
});

test('vertex: tokens are cached until a minute before expiry, concurrent requests share one exchange, refusals are final 401s', async (t) => {
  const { createServer } = await import('node:http');
  const { Agent } = await import('undici');
  const { geminiCredentials, clearVertexTokens } = await import('../../src/vendors/gemini/vertex-token.js');
  let exchanges = 0;
  let refuse = false;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      exchanges++;
      const form = new URLSearchParams(body);
      const ok = form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' && (form.get('assertion') ?? '').split('.').length === 3;
      response.writeHead(refuse || !ok ? 400 : 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(refuse || !ok ? { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } : { access_token: `ya29.token-${exchanges}`, expires_in: 3600, token_type: 'Bearer' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dispatcher = new Agent();
  t.teardown(async () => {
    clearVertexTokens();
    await dispatcher.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const tokenUri = `http://127.0.0.1:${(server.address() as { port: number }).port}/token`;
  const account = JSON.stringify({ client_email: 'sa@p.iam.gserviceaccount.com', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }), token_uri: tokenUri });
  const source = { name: 'vertex-unit', baseUrl: 'https://generativelanguage.googleapis.com', settings: { auth: 'vertex', project: 'p' }, secrets: { service_account: account }, dispatcher, timeoutMs: 5000 };
  let now = 1_700_000_000_000;
  const clock = () => now;
  const signal = new AbortController().signal;
  const [first, second] = await Promise.all([geminiCredentials(source, signal, clock), geminiCredentials(source, signal, clock)]);
  t.is(first, 'ya29.token-1');
  t.is(second, 'ya29.token-1');
  t.is(exchanges, 1, 'one exchange for two concurrent requests');
  now += 58 * 60_000;
  t.is(await geminiCredentials(source, signal, clock), 'ya29.token-1', 'still more than a minute left');
  now += 60_000;
  t.is(await geminiCredentials(source, signal, clock), 'ya29.token-2', 'renewed a minute before expiry');
  t.is(exchanges, 2);
  refuse = true;
  now += 60 * 60_000;
  const refused = await t.throwsAsync(geminiCredentials(source, signal, clock), { instanceOf: UpstreamError });
  t.like(refused, { status: 401, retryable: false, upstreamType: 'invalid_grant' });
  refuse = false;
  t.is(await geminiCredentials(source, signal, clock), 'ya29.token-4', 'a failed exchange is not cached');
  t.is(await geminiCredentials({ ...source, settings: {}, apiKey: 'AIza-key' }, signal, clock), 'AIza-key', 'API-key providers get their key');
  await t.throwsAsync(geminiCredentials({ ...source, settings: { auth: 'vertex' } }, signal, clock), { message: /no project/ });
});
