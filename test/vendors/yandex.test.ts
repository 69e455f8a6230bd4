// The Yandex adapters: golden fixtures of YandexGPT's completion (test/fixtures/vendors/yandex/,
// written from the Foundation Models API reference and guides), and what fixtures cannot pin:
// tool calls (their ids are made here, Yandex gives none), the 429 cooldown, YandexART's
// submit → poll → image operation, and the settings the vendor declares.
import test from 'ava';
import { z } from 'zod';
import type { ImageGenerationRequest } from '../../src/model/media.js';
import type { MediaHttpResponse, MediaTarget } from '../../src/vendors/media-types.js';
import { UpstreamError } from '../../src/vendors/types.js';
import { yandexChatAdapter } from '../../src/vendors/yandex/chat.js';
import { aspectRatioOf, yandexArtOperation, yandexPollDelayMs } from '../../src/vendors/yandex/images.js';
import { yandexVendor } from '../../src/vendors/yandex/vendor.js';
import { chatRequest, parseEvents, testFixtures } from './fixtures.js';
import { streamViolations } from './stream-invariants.js';

const target = {
  model: 'yandexgpt-lite/latest',
  baseUrl: 'https://llm.api.cloud.yandex.net',
  apiKey: 'AQVNexamplekey',
  capabilities: { reasoningEfforts: [], canDisableReasoning: false, vision: false, tools: true, maxOutputTokens: 8000 },
  maxOutputTokens: 2000,
  search: false,
  settings: { folder_id: 'b1gexamplefolder' },
};

testFixtures('yandex', yandexChatAdapter, target, (body) => (body.completionOptions as { stream?: unknown } | undefined)?.stream);

test('yandex: the chat adapter reads JSON lines and takes no documents', (t) => {
  t.is(yandexChatAdapter.framing, 'ndjson');
  t.false(yandexChatAdapter.takesDocuments);
});

test('yandex: a TOOL_CALLS alternative becomes one whole tool call per functionCall, with made-up ids', (t) => {
  const line = {
    result: {
      alternatives: [
        {
          message: { role: 'assistant', toolCallList: { toolCalls: [{ functionCall: { name: 'WeatherTool', arguments: { city: 'Moscow' } } }, { functionCall: { name: 'TimeTool', arguments: {} } }] } },
          status: 'ALTERNATIVE_STATUS_TOOL_CALLS',
        },
      ],
      usage: { inputTextTokens: '80', completionTokens: '12', totalTokens: '92' },
      modelVersion: '23.10.2024',
    },
  };
  const { parts, error } = parseEvents(yandexChatAdapter, target, [{ data: JSON.stringify(line) }]);
  t.is(error, undefined);
  t.deepEqual(streamViolations(parts), []);
  const starts = parts.filter((part) => part.type === 'tool_call_start');
  t.deepEqual(starts.map((part) => part.name), ['WeatherTool', 'TimeTool']);
  for (const part of starts) t.regex(part.id, /^call_[0-9a-f]{24}$/);
  t.not(starts[0]!.id, starts[1]!.id);
  t.deepEqual(parts.flatMap((part) => (part.type === 'tool_call_delta' ? [part.argumentsDelta] : [])), ['{"city":"Moscow"}', '{}']);
  t.deepEqual(parts.at(-1), { type: 'finish', finishReason: 'tool_calls', rawFinishReason: 'ALTERNATIVE_STATUS_TOOL_CALLS' });
});

test('yandex: a 429 carries a one-second cooldown (Yandex sends no Retry-After); other refusals none', (t) => {
  const quota = JSON.stringify({ error: { grpcCode: 8, httpCode: 429, message: 'quota limit exceed', httpStatus: 'Too Many Requests', details: [] } });
  t.is(yandexChatAdapter.parseError(429, quota).retryAfterMs, 1000);
  t.is(yandexChatAdapter.parseError(400, '{"error":{"grpcCode":3,"httpCode":400,"message":"bad","httpStatus":"Bad Request"}}').retryAfterMs, undefined);
});

test('yandex: an answer without the `result` wrapper is read as well', (t) => {
  const line = { alternatives: [{ message: { role: 'assistant', text: 'Hi' }, status: 'ALTERNATIVE_STATUS_FINAL' }], usage: { inputTextTokens: '3', completionTokens: '1', totalTokens: '4' } };
  const { parts } = parseEvents(yandexChatAdapter, target, [{ data: JSON.stringify(line) }], chatRequest({}));
  t.deepEqual(parts.filter((part) => part.type === 'text_delta'), [{ type: 'text_delta', index: 0, text: 'Hi' }]);
});

test('yandex: the vendor requires folder_id and takes auth and operations_url', (t) => {
  const settings = z.object(yandexVendor.providerSettings!);
  t.false(settings.safeParse({}).success);
  t.true(settings.safeParse({ folder_id: 'b1g' }).success);
  t.true(settings.safeParse({ folder_id: 'b1g', auth: 'iam_token', operations_url: 'https://operation.api.cloud.yandex.net' }).success);
  t.false(settings.safeParse({ folder_id: 'b1g', auth: 'password' }).success);
  t.is(yandexVendor.defaultBaseUrl, 'https://llm.api.cloud.yandex.net');
});

// ----------------------------------------------------------------------------------- YandexART

const artTarget: MediaTarget = { model: 'yandex-art/latest', baseUrl: 'https://llm.api.cloud.yandex.net', apiKey: 'AQVNexamplekey', settings: { folder_id: 'b1gexamplefolder' } };
const imageRequest: ImageGenerationRequest = { prompt: 'узор из цветных пастельных суккулентов', n: 1, size: '1344x768', outputFormat: 'jpeg', images: [] };

function answer(json: unknown): MediaHttpResponse {
  return { status: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(json)) };
}

test('yandexart: the submit is the guide\'s imageGenerationAsync request, with the size as its smallest ratio', (t) => {
  const built = yandexArtOperation.build(imageRequest, artTarget);
  t.deepEqual(built, {
    url: 'https://llm.api.cloud.yandex.net/foundationModels/v1/imageGenerationAsync',
    method: 'POST',
    headers: { authorization: 'Api-Key AQVNexamplekey', 'x-folder-id': 'b1gexamplefolder' },
    body: {
      json: {
        modelUri: 'art://b1gexamplefolder/yandex-art/latest',
        generationOptions: { aspectRatio: { widthRatio: '7', heightRatio: '4' }, mimeType: 'image/jpeg' },
        messages: [{ text: 'узор из цветных пастельных суккулентов', weight: '1' }],
      },
    },
  });
  t.deepEqual(aspectRatioOf({ aspectRatio: '16:9' }), { widthRatio: '16', heightRatio: '9' });
  t.deepEqual(aspectRatioOf({ size: '1024x1024' }), { widthRatio: '1', heightRatio: '1' });
  t.is(aspectRatioOf({}), undefined);
});

test('yandexart: an operation not done is polled on the operations host until done, then its image is read', (t) => {
  const submitted = answer({ id: 'fbveu1ee3nm3v3rq1cgj', description: 'Async Image Generation', createdAt: '2024-04-04T11:03:31Z', createdBy: 'ajeg2b2et02f6kq7hbl8', modifiedAt: '2024-04-04T11:03:31Z', done: false, metadata: null });
  const poll = yandexArtOperation.follow!(submitted, imageRequest, artTarget);
  t.deepEqual(poll, {
    request: { url: 'https://operation.api.cloud.yandex.net/operations/fbveu1ee3nm3v3rq1cgj', method: 'GET', headers: { authorization: 'Api-Key AQVNexamplekey', 'x-folder-id': 'b1gexamplefolder' } },
    delayMs: yandexPollDelayMs,
  });
  const simulated = { ...artTarget, settings: { folder_id: 'b1g', operations_url: 'http://127.0.0.1:4010/yandex/' } };
  t.is(yandexArtOperation.follow!(submitted, imageRequest, simulated)!.request.url, 'http://127.0.0.1:4010/yandex/operations/fbveu1ee3nm3v3rq1cgj');
  t.truthy(yandexArtOperation.follow!(submitted, imageRequest, artTarget), 'still running: polled again');

  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
  const done = answer({ id: 'fbveu1ee3nm3v3rq1cgj', done: true, response: { '@type': 'type.googleapis.com/yandex.cloud.ai.foundation_models.v1.image_generation.ImageGenerationResponse', image: jpeg.toString('base64'), modelVersion: '' } });
  t.is(yandexArtOperation.follow!(done, imageRequest, artTarget), undefined);
  const images = yandexArtOperation.parse(done, imageRequest, artTarget) as { data: Uint8Array; mediaType: string }[];
  t.deepEqual(images.map((image) => [Buffer.from(image.data).toString('hex'), image.mediaType]), [[jpeg.toString('hex'), 'image/jpeg']]);
});

test('yandexart: a failed operation is an UpstreamError by its gRPC code', (t) => {
  const failed = answer({ id: 'op1', done: true, error: { code: 3, message: 'it is not possible to generate an image from this request', details: [] } });
  const error = t.throws(() => yandexArtOperation.parse(failed, imageRequest, artTarget));
  t.true(error instanceof UpstreamError);
  t.like(error, { status: 400, retryable: false, message: 'it is not possible to generate an image from this request' });
  const exhausted = t.throws(() => yandexArtOperation.parse(answer({ id: 'op2', done: true, error: { code: 8, message: 'quota' } }), imageRequest, artTarget));
  t.like(exhausted, { status: 429, retryable: true });
});
