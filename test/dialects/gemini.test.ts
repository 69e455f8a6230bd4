// The Gemini API client dialect's pure codecs (src/dialects/gemini/): request decoding into the
// internal ChatRequest, refusals naming their field, the response body, the SSE stream, the
// error body. Bodies written as @google/genai sends them (its converters' output).
import test from 'ava';
import {
  decodeCountTokensRequest,
  encodeGeminiError,
  encodeGenerateContentResult,
  GeminiStreamEncoder,
  generateContentDialect,
  rpcStatusName,
  streamGenerateContentDialect,
} from '../../src/dialects/gemini/index.js';
import { toJsonSchema } from '../../src/dialects/gemini/json-schema.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { validationFailed } from '../../src/errors/refusals.js';
import type { ChatRequest, ChatResult, StreamPart } from '../../src/model/chat.js';
import { RequestValidationError } from '../../src/validation/zod-details.js';

const decode = (body: Record<string, unknown>) => generateContentDialect.decodeRequest({ model: 'sim/chat', ...body });
const user = (text: string) => ({ role: 'user', parts: [{ text }] });

function refusal(t: import('ava').ExecutionContext, body: Record<string, unknown>): { loc: (string | number)[]; msg: string } {
  const error = t.throws(() => decode(body), { instanceOf: RequestValidationError })!;
  return { loc: error.details[0]!.loc, msg: error.details[0]!.msg };
}

test('gemini decode: system instruction, generation config, a plain turn', (t) => {
  const request = decode({
    contents: [user('Hello')],
    systemInstruction: { role: 'user', parts: [{ text: 'Be brief.' }, { text: 'Answer in French.' }] },
    generationConfig: { maxOutputTokens: 300, temperature: 0.2, topP: 0.8, topK: 40, stopSequences: ['END'] },
    safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
  });
  t.deepEqual(request, {
    model: 'sim/chat',
    system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Answer in French.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    tools: [],
    maxOutputTokens: 300,
    temperature: 0.2,
    topP: 0.8,
    stop: ['END'],
    stream: false,
    includeUsage: false,
    showReasoning: false,
  });
  t.true(streamGenerateContentDialect.decodeRequest({ model: 'models/sim/chat', contents: [user('x')] }).stream, 'the stream route streams');
  t.is(streamGenerateContentDialect.decodeRequest({ model: 'models/sim/chat', contents: [user('x')] }).model, 'sim/chat', 'models/ prefix dropped');
});

test('gemini decode: images and PDFs inline, an image by http(s) URI, the old function role, turns of one side merged', (t) => {
  const request = decode({
    contents: [
      { role: 'user', parts: [{ text: 'Look' }, { inlineData: { mimeType: 'image/png', data: 'iVBO' } }] },
      { parts: [{ inlineData: { mimeType: 'application/pdf', data: 'JVBE' } }, { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/a.jpg' } }] },
      { role: 'model', parts: [{ text: 'I see ' }, { text: 'them.' }] },
      { role: 'user', parts: [{ text: '' }, { text: 'Thanks' }] },
    ],
  });
  t.deepEqual(request.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Look' },
        { type: 'image', mediaType: 'image/png', data: 'iVBO' },
        { type: 'document', source: { type: 'base64', mediaType: 'application/pdf', data: 'JVBE' } },
        { type: 'image', url: 'https://example.com/a.jpg', mediaType: 'image/jpeg' },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'I see them.' }] },
    { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
  ]);
});

test('gemini decode: function calls and responses, matched by id or else by name; thought fragments joined up to their signature', (t) => {
  const request = decode({
    contents: [
      user('Weather in Paris and Rome?'),
      {
        role: 'model',
        parts: [
          { text: 'Let me ', thought: true },
          { text: 'think.', thought: true },
          { text: '', thought: true, thoughtSignature: 'c2ln' },
          { functionCall: { id: 'call_a', name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
        ],
      },
      {
        role: 'function',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: 'Rainy' } } },
          { functionResponse: { id: 'call_a', name: 'get_weather', response: { temperature: 21 } } },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'lookup', id: 'call_x', response: { error: 'failed' } } }] },
    ],
    tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] } }] }],
  });
  t.deepEqual(request.messages.slice(1), [
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Let me think.', signature: 'c2ln' },
        { type: 'tool_call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool_call', id: 'call_1_4', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ],
    },
    {
      role: 'user',
      content: [
        // The first call answered by id already: the one without an id answers the other call of that name.
        { type: 'tool_result', toolCallId: 'call_1_4', content: [{ type: 'text', text: 'Rainy' }] },
        { type: 'tool_result', toolCallId: 'call_a', content: [{ type: 'text', text: '{"temperature":21}' }] },
        { type: 'tool_result', toolCallId: 'call_x', content: [{ type: 'text', text: '{"error":"failed"}' }], isError: true },
      ],
    },
  ]);
  t.deepEqual(request.tools, [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }]);
});

test('gemini decode: tool config modes', (t) => {
  const tools = [{ functionDeclarations: [{ name: 'a' }, { name: 'b', parametersJsonSchema: { type: 'object', properties: { x: { type: 'number' } } } }, { name: 'c' }] }];
  const choice = (functionCallingConfig: Record<string, unknown>) => {
    const request = decode({ contents: [user('x')], tools, toolConfig: { functionCallingConfig } });
    return { names: request.tools.map((tool) => tool.name), choice: request.toolChoice };
  };
  t.deepEqual(choice({ mode: 'AUTO' }), { names: ['a', 'b', 'c'], choice: { type: 'auto' } });
  t.deepEqual(choice({ mode: 'NONE' }), { names: ['a', 'b', 'c'], choice: { type: 'none' } });
  t.deepEqual(choice({ mode: 'ANY' }), { names: ['a', 'b', 'c'], choice: { type: 'required' } });
  t.deepEqual(choice({ mode: 'ANY', allowedFunctionNames: ['b'] }), { names: ['b'], choice: { type: 'tool', name: 'b' } });
  t.deepEqual(choice({ mode: 'ANY', allowedFunctionNames: ['a', 'c'] }), { names: ['a', 'c'], choice: { type: 'required' } });
  t.deepEqual(choice({ mode: 'VALIDATED' }), { names: ['a', 'b', 'c'], choice: { type: 'auto' } });
  t.deepEqual(choice({}), { names: ['a', 'b', 'c'], choice: undefined });
  const request = decode({ contents: [user('x')], tools });
  t.deepEqual(request.tools[0]!.parameters, { type: 'object', properties: {} }, 'a declaration without parameters takes none');
  t.deepEqual(request.tools[1]!.parameters, { type: 'object', properties: { x: { type: 'number' } } }, 'a JSON schema as it is');
});

test('gemini decode: JSON mode and schemas', (t) => {
  const format = (generationConfig: Record<string, unknown>) => decode({ contents: [user('x')], generationConfig }).responseFormat;
  t.is(format({ responseMimeType: 'text/plain' }), undefined);
  t.deepEqual(format({ responseMimeType: 'application/json' }), { type: 'json_object' });
  t.deepEqual(format({ responseMimeType: 'application/json', responseJsonSchema: { type: 'object', properties: { a: { type: 'string' } } } }), {
    type: 'json_schema',
    name: 'response',
    schema: { type: 'object', properties: { a: { type: 'string' } } },
  });
  t.deepEqual(format({ responseMimeType: 'application/json', responseSchema: { type: 'ARRAY', items: { type: 'STRING', enum: ['x', 'y'] }, minItems: '1', nullable: true } }), {
    type: 'json_schema',
    name: 'response',
    schema: { type: ['array', 'null'], items: { type: 'string', enum: ['x', 'y'] }, minItems: 1 },
  });
});

test('gemini Schema → JSON Schema: types lowercased, nullable, int64 counts, propertyOrdering dropped, anyOf, example', (t) => {
  t.deepEqual(
    toJsonSchema({
      type: 'OBJECT',
      description: 'A person',
      propertyOrdering: ['name', 'age'],
      properties: {
        name: { type: 'STRING', maxLength: '20', example: 'Ada' },
        age: { type: 'INTEGER', nullable: true, minimum: 0 },
        tag: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }], nullable: true },
        kind: { type: 'TYPE_UNSPECIFIED', format: 'enum' },
      },
      required: ['name'],
    }),
    {
      type: 'object',
      description: 'A person',
      properties: {
        name: { type: 'string', maxLength: 20, examples: ['Ada'] },
        age: { type: ['integer', 'null'], minimum: 0 },
        tag: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
        kind: { format: 'enum' },
      },
      required: ['name'],
    },
  );
});

test('gemini decode: thinking config → reasoning effort', (t) => {
  const thinking = (thinkingConfig: Record<string, unknown>) => {
    const request = decode({ contents: [user('x')], generationConfig: { thinkingConfig } });
    return [request.reasoningEffort, request.reasoningEffortIsHint, request.showReasoning];
  };
  t.deepEqual(thinking({ thinkingBudget: 0 }), ['off', undefined, false]);
  t.deepEqual(thinking({ thinkingBudget: -1, includeThoughts: true }), [undefined, undefined, true]);
  t.deepEqual(thinking({ thinkingBudget: 2048 }), ['low', true, false], 'a budget is a hint, as Anthropic budget_tokens');
  t.deepEqual(thinking({ thinkingBudget: 5000, includeThoughts: true }), ['medium', true, true]);
  t.deepEqual(thinking({ thinkingLevel: 'HIGH' }), ['high', undefined, false], 'a level names the effort');
  t.deepEqual(thinking({ thinkingLevel: 'MINIMAL' }), ['minimal', undefined, false]);
  t.deepEqual(thinking({ thinkingLevel: 'THINKING_LEVEL_UNSPECIFIED' }), [undefined, undefined, false]);
});

test('gemini decode: what cannot be honoured is refused, naming its field', (t) => {
  const contents = [user('x')];
  const cases: [Record<string, unknown>, (string | number)[], RegExp][] = [
    [{ contents, cachedContent: 'cachedContents/1' }, ['body', 'cachedContent'], /cachedContent is not supported/],
    [{ contents, tools: [{ googleSearch: {} }] }, ['body', 'tools', 0, 'googleSearch'], /search models/],
    [{ contents, tools: [{ codeExecution: {} }] }, ['body', 'tools', 0, 'codeExecution'], /code execution is not supported/],
    [{ contents, tools: [{ urlContext: {} }] }, ['body', 'tools', 0, 'urlContext'], /urlContext tools are not supported/],
    [{ contents, generationConfig: { candidateCount: 2 } }, ['body', 'generationConfig', 'candidateCount'], /only one candidate/],
    [{ contents, generationConfig: { responseLogprobs: true } }, ['body', 'generationConfig', 'responseLogprobs'], /log probabilities/],
    [{ contents, generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }, ['body', 'generationConfig', 'responseModalities'], /IMAGE is not supported/],
    [{ contents, generationConfig: { speechConfig: { voiceConfig: {} } } }, ['body', 'generationConfig', 'speechConfig'], /audio output/],
    [{ contents, generationConfig: { responseMimeType: 'text/x.enum' } }, ['body', 'generationConfig', 'responseMimeType'], /text\/x\.enum is not supported/],
    [{ contents, generationConfig: { responseSchema: { type: 'STRING' } } }, ['body', 'generationConfig', 'responseSchema'], /needs responseMimeType application\/json/],
    [{ contents, generationConfig: { thinkingConfig: { thinkingBudget: 100, thinkingLevel: 'LOW' } } }, ['body', 'generationConfig', 'thinkingConfig', 'thinkingLevel'], /not both/],
    [{ contents, generationConfig: { stopSequences: ['a', 'b', 'c', 'd', 'e', 'f'] } }, ['body', 'generationConfig', 'stopSequences'], /at most 5/],
    [{ contents: [{ role: 'user', parts: [{ fileData: { fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc', mimeType: 'video/mp4' } }] }] }, ['body', 'contents', 0, 'parts', 0, 'fileData', 'fileUri'], /http\(s\) address only/],
    [{ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'audio/mp3', data: 'AAAA' } }] }] }, ['body', 'contents', 0, 'parts', 0, 'inlineData', 'mimeType'], /audio\/mp3 is not supported/],
    [{ contents: [{ role: 'user', parts: [{ executableCode: { code: 'print(1)' } }] }] }, ['body', 'contents', 0, 'parts', 0, 'executableCode'], /not supported/],
    [{ contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] }] }, ['body', 'contents', 0, 'parts', 0, 'functionResponse', 'name'], /answers no functionCall 'f'/],
    [{ contents: [{ role: 'user', parts: [{ text: 'a', inlineData: { mimeType: 'image/png', data: 'x' } }] }] }, ['body', 'contents', 0, 'parts', 0], /one kind of data/],
    [{ contents, tools: [{ functionDeclarations: [{ name: 'a' }] }], toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['b'] } } }, ['body', 'toolConfig', 'functionCallingConfig', 'allowedFunctionNames', 0], /not among the functionDeclarations/],
    [{ contents: [] }, ['body', 'contents'], /at least 1/],
  ];
  for (const [body, loc, message] of cases) {
    const found = refusal(t, body);
    t.deepEqual(found.loc, loc, JSON.stringify(body));
    t.regex(found.msg, message);
  }
});

test('gemini countTokens: contents alone, or a whole generateContentRequest', (t) => {
  const alone = decodeCountTokensRequest({ model: 'sim/chat', contents: [user('Hi')] });
  t.deepEqual(alone.messages, [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
  const whole = decodeCountTokensRequest({ model: 'sim/chat', generateContentRequest: { model: 'models/x', contents: [user('Hi')], systemInstruction: { parts: [{ text: 'Sys' }] } } });
  t.deepEqual(whole.system, [{ type: 'text', text: 'Sys' }]);
  t.is(whole.model, 'sim/chat', "the path's model");
  t.throws(() => decodeCountTokensRequest({ model: 'sim/chat' }), { instanceOf: RequestValidationError, message: /contents or generateContentRequest/ });
});

const baseRequest: ChatRequest = { model: 'sim/chat', system: [], messages: [], tools: [], stop: [], stream: false, includeUsage: false };
const usage = { inputTokens: 100, cachedInputTokens: 40, cacheWriteInputTokens: 0, outputTokens: 50, reasoningTokens: 20 };
const result: ChatResult = {
  id: 'resp-1',
  model: 'upstream-model',
  content: [
    { type: 'reasoning', text: 'Hmm.', signature: 'sig' },
    { type: 'redacted_reasoning', data: 'enc' },
    { type: 'text', text: 'It is sunny.' },
    { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
  ],
  citations: [
    { contentIndex: 2, url: 'https://a.example/1', title: 'A', startIndex: 6, endIndex: 11 },
    { contentIndex: 2, url: 'https://a.example/2' },
    { contentIndex: 2, url: 'https://a.example/1', title: 'A' },
  ],
  finishReason: 'tool_calls',
  rawFinishReason: 'tool_use',
  stopSequence: null,
  usage,
  usageEstimated: false,
  created: 1,
};

test('gemini result: parts, thoughts only when asked, finish reason, grounding, usage', (t) => {
  const usageMetadata = { promptTokenCount: 100, candidatesTokenCount: 30, totalTokenCount: 150, cachedContentTokenCount: 40, thoughtsTokenCount: 20 };
  const grounding = {
    groundingChunks: [{ web: { uri: 'https://a.example/1', title: 'A' } }, { web: { uri: 'https://a.example/2' } }],
    groundingSupports: [
      { segment: { partIndex: 1, startIndex: 6, endIndex: 11 }, groundingChunkIndices: [0] },
      { segment: { partIndex: 1, startIndex: 0, endIndex: 12 }, groundingChunkIndices: [1] },
      { segment: { partIndex: 1, startIndex: 0, endIndex: 12 }, groundingChunkIndices: [0] },
    ],
  };
  t.deepEqual(encodeGenerateContentResult(result, { ...baseRequest, showReasoning: true }), {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [{ text: 'Hmm.', thought: true, thoughtSignature: 'sig' }, { text: 'It is sunny.' }, { functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } }],
        },
        finishReason: 'STOP',
        index: 0,
        groundingMetadata: grounding,
      },
    ],
    usageMetadata,
    modelVersion: 'sim/chat',
    responseId: 'resp-1',
  });
  const hidden = encodeGenerateContentResult({ ...result, citations: [] }, baseRequest);
  t.deepEqual(hidden.candidates[0]!.content.parts, [{ text: 'It is sunny.' }, { functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } }]);
  t.false('groundingMetadata' in hidden.candidates[0]!);
  const empty = encodeGenerateContentResult({ ...result, content: [], citations: [], finishReason: 'length', rawFinishReason: 'max_tokens', usage: { ...usage, cachedInputTokens: 0, reasoningTokens: 0 } }, baseRequest);
  t.deepEqual(empty.candidates[0]!.content.parts, [{ text: '' }], 'a part, even empty');
  t.is(empty.candidates[0]!.finishReason, 'MAX_TOKENS');
  t.deepEqual(empty.usageMetadata, { promptTokenCount: 100, candidatesTokenCount: 50, totalTokenCount: 150 });
});

test("gemini finish reasons: a Gemini upstream's own value is kept when it agrees", (t) => {
  const finish = (finishReason: ChatResult['finishReason'], rawFinishReason: string | null) =>
    encodeGenerateContentResult({ ...result, finishReason, rawFinishReason }, baseRequest).candidates[0]!.finishReason;
  t.is(finish('stop', 'end_turn'), 'STOP');
  t.is(finish('length', 'length'), 'MAX_TOKENS');
  t.is(finish('content_filter', 'content_filter'), 'SAFETY');
  t.is(finish('refusal', 'refusal'), 'SAFETY');
  t.is(finish('error', null), 'OTHER');
  t.is(finish('content_filter', 'RECITATION'), 'RECITATION');
  t.is(finish('stop', 'MAX_TOKENS'), 'STOP', 'a raw value that disagrees is not kept');
});

function sse(request: ChatRequest, parts: StreamPart[]): unknown[] {
  const encoder = new GeminiStreamEncoder(request, { id: 'resp-1', created: 1 });
  const text = parts.map((part) => encoder.encode(part)).join('') + encoder.end(usage);
  t_assertFraming(text);
  return text
    .trim()
    .split('\n\n')
    .map((event) => JSON.parse(event.slice('data: '.length)));
}

function t_assertFraming(text: string): void {
  if (!text.split('\n\n').slice(0, -1).every((event) => /^data: \{.*\}$/.test(event))) throw new Error(`not one data line per event: ${text}`);
}

const streamParts: StreamPart[] = [
  { type: 'start', id: 'resp-1', model: 'upstream' },
  { type: 'reasoning_start', index: 0 },
  { type: 'reasoning_delta', index: 0, text: 'Hmm' },
  { type: 'reasoning_signature', index: 0, signature: 'sig' },
  { type: 'reasoning_end', index: 0 },
  { type: 'text_start', index: 1 },
  { type: 'text_delta', index: 1, text: 'Sunny' },
  { type: 'text_delta', index: 1, text: '' },
  { type: 'citation', index: 1, citation: { url: 'https://a.example/1' } },
  { type: 'text_end', index: 1 },
  { type: 'tool_call_start', index: 2, id: 'call_1', name: 'f' },
  { type: 'tool_call_start', index: 3, id: 'call_2', name: 'g' },
  { type: 'tool_call_delta', index: 2, argumentsDelta: '{"a":' },
  { type: 'tool_call_delta', index: 3, argumentsDelta: '{}' },
  { type: 'tool_call_end', index: 3 },
  { type: 'tool_call_delta', index: 2, argumentsDelta: '1}' },
  { type: 'usage', usage },
  { type: 'finish', finishReason: 'tool_calls', rawFinishReason: 'tool_calls' },
];

test('gemini stream: one GenerateContentResponse per event; calls whole when complete; finish, grounding and usage last', (t) => {
  const chunk = (parts: unknown[]) => ({ candidates: [{ content: { role: 'model', parts }, index: 0 }], modelVersion: 'sim/chat', responseId: 'resp-1' });
  t.deepEqual(sse({ ...baseRequest, stream: true, showReasoning: true }, streamParts), [
    chunk([{ text: 'Hmm', thought: true }]),
    chunk([{ text: '', thought: true, thoughtSignature: 'sig' }]),
    chunk([{ text: 'Sunny' }]),
    chunk([{ functionCall: { id: 'call_2', name: 'g', args: {} } }]),
    chunk([{ functionCall: { id: 'call_1', name: 'f', args: { a: 1 } } }]),
    {
      candidates: [
        {
          content: { role: 'model', parts: [{ text: '' }] },
          finishReason: 'STOP',
          index: 0,
          groundingMetadata: { groundingChunks: [{ web: { uri: 'https://a.example/1' } }], groundingSupports: [{ segment: { startIndex: 0, endIndex: 5 }, groundingChunkIndices: [0] }] },
        },
      ],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 30, totalTokenCount: 150, cachedContentTokenCount: 40, thoughtsTokenCount: 20 },
      modelVersion: 'sim/chat',
      responseId: 'resp-1',
    },
  ]);
  const hidden = sse({ ...baseRequest, stream: true }, streamParts) as { candidates: { content: { parts: { thought?: boolean }[] } }[] }[];
  t.is(hidden.length, 4, 'no thought chunks unless includeThoughts');
  t.false(hidden.some((event) => event.candidates[0]!.content.parts.some((part) => part.thought)));
});

test('gemini stream: an error after the first byte is a data line the SDK throws on', (t) => {
  const encoder = new GeminiStreamEncoder(baseRequest, { id: 'r', created: 1 });
  t.is(encoder.error('The upstream failed midway.', 'api_error'), 'data: {"error":{"code":500,"message":"The upstream failed midway.","status":"INTERNAL"}}\n\n');
  t.is(encoder.error('Bad.', 'invalid_request_error'), 'data: {"error":{"code":400,"message":"Bad.","status":"INVALID_ARGUMENT"}}\n\n');
});

test("gemini errors: Google's body, google.rpc status names, the catalog code and the field at fault in details", (t) => {
  t.deepEqual(encodeGeminiError(new GatewayError('model_not_found', 'The model `x` does not exist.'), 'req_1'), {
    error: {
      code: 404,
      message: 'The model `x` does not exist.',
      status: 'NOT_FOUND',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'model_not_found', domain: 'gateway', metadata: { request_id: 'req_1' } }],
    },
  });
  const validation = validationFailed([{ loc: ['body', 'generationConfig', 'candidateCount'], msg: 'only one candidate is served', type: 'value_error' }]);
  const body = encodeGeminiError(new GatewayError(validation.code, validation.message, { ...validation.options, status: 400 }), 'req_2') as { error: Record<string, any> };
  t.like(body.error, { code: 400, status: 'INVALID_ARGUMENT', message: 'body.generationConfig.candidateCount: only one candidate is served' });
  t.deepEqual(body.error.details[1], { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'generationConfig.candidateCount', description: 'only one candidate is served' }] });
  t.deepEqual(
    [400, 401, 402, 403, 404, 409, 413, 422, 429, 500, 502, 503, 504, 418, 599].map(rpcStatusName),
    ['INVALID_ARGUMENT', 'UNAUTHENTICATED', 'FAILED_PRECONDITION', 'PERMISSION_DENIED', 'NOT_FOUND', 'ABORTED', 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'RESOURCE_EXHAUSTED', 'INTERNAL', 'UNAVAILABLE', 'UNAVAILABLE', 'DEADLINE_EXCEEDED', 'FAILED_PRECONDITION', 'INTERNAL'],
  );
});
