// The vendor registry: each provider kind's chat, media and job adapters come from its one
// line in src/vendors/registry.ts, and so do the config's kinds and createUpstreams' choices.
import test from 'ava';
import type { ProviderConfig } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';
import { anthropicChatAdapter } from '../../src/vendors/anthropic/chat.js';
import type { JobAdapter } from '../../src/vendors/job-types.js';
import type { MediaAdapter } from '../../src/vendors/media-types.js';
import { openaiCompatibleChatAdapter } from '../../src/vendors/openai-compatible/chat.js';
import { openaiCompatibleMediaAdapter } from '../../src/vendors/openai-compatible/media.js';
import { openaiCompatibleVideoJobs } from '../../src/vendors/openai-compatible/vendor.js';
import { openaiChatAdapter } from '../../src/vendors/openai/chat.js';
import { openaiMediaAdapter } from '../../src/vendors/openai/media.js';
import { openaiVideoJobs } from '../../src/vendors/openai/vendor.js';
import { chatAdapterFor, jobAdapterFor, mediaAdapterFor, providerKinds, vendorOf } from '../../src/vendors/registry.js';
import { simOpenaiMediaAdapter } from '../../src/vendors/sim/under-v1.js';
import { simVendor } from '../../src/vendors/sim/vendor.js';
import { sunoMusicJobs } from '../../src/vendors/suno/vendor.js';
import { systemOneAdapter } from '../../src/vendors/system-one/decisions.js';
import { upscalerAdapter } from '../../src/vendors/upscaler/image-upscale.js';
import { bflMediaAdapter, bflVendor } from '../../src/vendors/bfl/vendor.js';
import { elevenLabsMediaAdapter, elevenLabsVendor } from '../../src/vendors/elevenlabs/vendor.js';
import { upscalerVideoJobs } from '../../src/vendors/upscaler/vendor.js';
import { createUpstreams, needsSimulator } from '../../src/vendors/upstreams.js';

const oddKinds = ['nope', 'constructor', '__proto__', 'toString'];

/** The settings a kind cannot go without (Vendor.providerSettings that are required). */
const requiredSettings: Record<string, Record<string, string>> = {
  bedrock: { region: 'us-east-1' },
  // Yandex: the folder calls are billed to.
  yandex: { folder_id: 'b1gfolder' },
};

test('the provider kinds are the registry\'s, in its order, and the config accepts exactly those', (t) => {
  t.deepEqual(providerKinds, ['openai', 'anthropic', 'openai-compatible', 'sim', 'system-one', 'suno', 'upscaler', 'bfl', 'elevenlabs', 'kling', 'bedrock', 'gemini', 'yandex', 'gigachat']);
  const providersField = configSchema.shape.providers;
  const accepted = [...providerKinds, ...oddKinds].filter((kind) => providersField.safeParse({ p: { kind, ...requiredSettings[kind] } }).success);
  t.deepEqual(accepted, providerKinds);
  for (const kind of Object.keys(requiredSettings)) t.false(providersField.safeParse({ p: { kind } }).success, `${kind} without its required settings`);
  for (const kind of providerKinds) t.truthy(vendorOf(kind), kind);
  for (const kind of oddKinds) t.is(vendorOf(kind), undefined, kind);
});

test('chat: each chat kind has its adapter; the simulator speaks Anthropic messages; the others serve no chat', (t) => {
  t.is(chatAdapterFor('openai'), openaiChatAdapter);
  t.is(chatAdapterFor('openai-compatible'), openaiCompatibleChatAdapter);
  t.is(chatAdapterFor('anthropic'), anthropicChatAdapter);
  t.is(chatAdapterFor('sim'), anthropicChatAdapter);
  for (const kind of ['system-one', 'suno', 'upscaler', ...oddKinds]) t.is(chatAdapterFor(kind), undefined, kind);
  t.deepEqual([openaiChatAdapter.kind, openaiCompatibleChatAdapter.kind, anthropicChatAdapter.kind], ['openai', 'openai-compatible', 'anthropic']);
});

test('every chat parser is fresh: two streams never share state', (t) => {
  for (const adapter of [openaiChatAdapter, openaiCompatibleChatAdapter, anthropicChatAdapter]) {
    const target = { model: 'm', baseUrl: 'http://127.0.0.1:1', capabilities: { reasoningEfforts: [], canDisableReasoning: false, vision: false, tools: false, maxOutputTokens: 10 }, maxOutputTokens: 10, search: false };
    const request = { model: 'm', system: [], messages: [], tools: [], stop: [], stream: true, includeUsage: false };
    t.not(adapter.createStreamParser(target, request), adapter.createStreamParser(target, request));
  }
});

const mediaOperations = ['generateImages', 'editImages', 'speech', 'transcribe', 'embed', 'decide', 'upscaleImage'] as const;

function mediaTable(kind: string): Record<string, MediaAdapter | undefined> {
  return Object.fromEntries(mediaOperations.map((operation) => [operation, mediaAdapterFor(kind, operation)]));
}

test('media: openai and openai-compatible do images, audio and embeddings, nothing else', (t) => {
  const openaiOps = { generateImages: openaiMediaAdapter, editImages: openaiMediaAdapter, speech: openaiMediaAdapter, transcribe: openaiMediaAdapter, embed: openaiMediaAdapter, decide: undefined, upscaleImage: undefined };
  t.deepEqual(mediaTable('openai'), openaiOps);
  const compatible = Object.fromEntries(Object.entries(openaiOps).map(([operation, adapter]) => [operation, adapter && openaiCompatibleMediaAdapter]));
  t.deepEqual(mediaTable('openai-compatible'), compatible);
  t.is(openaiMediaAdapter.kind, 'openai');
  t.is(openaiCompatibleMediaAdapter.kind, 'openai-compatible');
});

test('media: system-one decides, the upscaler upscales', (t) => {
  t.deepEqual(mediaTable('system-one'), { generateImages: undefined, editImages: undefined, speech: undefined, transcribe: undefined, embed: undefined, decide: systemOneAdapter, upscaleImage: undefined });
  t.deepEqual(mediaTable('upscaler'), { generateImages: undefined, editImages: undefined, speech: undefined, transcribe: undefined, embed: undefined, decide: undefined, upscaleImage: upscalerAdapter });
  t.is(systemOneAdapter.kind, 'system-one');
  t.is(upscalerAdapter.kind, 'upscaler');
});

test('media: FLUX (bfl) generates and edits images, ElevenLabs speaks and transcribes; both at their public addresses', (t) => {
  t.deepEqual(mediaTable('bfl'), { generateImages: bflMediaAdapter, editImages: bflMediaAdapter, speech: undefined, transcribe: undefined, embed: undefined, decide: undefined, upscaleImage: undefined });
  t.deepEqual(mediaTable('elevenlabs'), { generateImages: undefined, editImages: undefined, speech: elevenLabsMediaAdapter, transcribe: elevenLabsMediaAdapter, embed: undefined, decide: undefined, upscaleImage: undefined });
  t.deepEqual([bflMediaAdapter.kind, elevenLabsMediaAdapter.kind], ['bfl', 'elevenlabs']);
  t.deepEqual([bflVendor.defaultBaseUrl, elevenLabsVendor.defaultBaseUrl], ['https://api.bfl.ai', 'https://api.elevenlabs.io']);
  for (const kind of ['bfl', 'elevenlabs']) {
    t.is(chatAdapterFor(kind), undefined, kind);
    t.deepEqual(jobTable(kind), { video: undefined, videoUpscale: undefined, music: undefined }, kind);
  }
});

test('media: the simulator: the OpenAI media operations (under /v1), System One, Stability', (t) => {
  t.deepEqual(mediaTable('sim'), {
    generateImages: simOpenaiMediaAdapter,
    editImages: simOpenaiMediaAdapter,
    speech: simOpenaiMediaAdapter,
    transcribe: simOpenaiMediaAdapter,
    embed: simOpenaiMediaAdapter,
    decide: systemOneAdapter,
    upscaleImage: upscalerAdapter,
  });
  t.is(simOpenaiMediaAdapter.parseError, openaiMediaAdapter.parseError);
});

test('media: kinds without media, unknown kinds and non-operations give undefined', (t) => {
  for (const kind of ['anthropic', 'suno', ...oddKinds]) t.deepEqual(Object.values(mediaTable(kind)).filter(Boolean), [], kind);
  t.is(mediaAdapterFor('openai', 'kind'), undefined);
  t.is(mediaAdapterFor('openai', 'parseError'), undefined);
});

const jobOperations = ['video', 'videoUpscale', 'music'] as const;

function jobTable(kind: string): Record<string, JobAdapter | undefined> {
  return Object.fromEntries(jobOperations.map((operation) => [operation, jobAdapterFor(kind, operation)]));
}

test('jobs: OpenAI-wire videos, Suno music, the upscaler\'s video upscales; the simulator all three', (t) => {
  t.deepEqual(jobTable('openai'), { video: openaiVideoJobs, videoUpscale: undefined, music: undefined });
  t.deepEqual(jobTable('openai-compatible'), { video: openaiCompatibleVideoJobs, videoUpscale: undefined, music: undefined });
  t.deepEqual(jobTable('suno'), { video: undefined, videoUpscale: undefined, music: sunoMusicJobs });
  t.deepEqual(jobTable('upscaler'), { video: undefined, videoUpscale: upscalerVideoJobs, music: undefined });
  t.deepEqual(jobTable('sim'), { video: simVendor.jobs[0], videoUpscale: upscalerVideoJobs, music: sunoMusicJobs });
  t.is(simVendor.jobs[0]!.kind, 'sim');
  for (const kind of ['anthropic', 'system-one', ...oddKinds]) t.deepEqual(Object.values(jobTable(kind)).filter(Boolean), [], kind);
});

test('jobs: only OpenAI\'s and the simulator\'s videos are re-sent under an idempotency key', (t) => {
  const headers = Object.fromEntries(['openai', 'openai-compatible', 'suno', 'upscaler', 'sim'].flatMap((kind) => jobOperations.flatMap((operation) => {
    const adapter = jobAdapterFor(kind, operation);
    return adapter ? [[`${kind} ${operation}`, adapter.idempotencyHeader ?? null]] : [];
  })));
  t.deepEqual(headers, {
    'openai video': 'Idempotency-Key',
    'openai-compatible video': null,
    'suno music': null,
    'upscaler videoUpscale': null,
    'sim video': 'Idempotency-Key',
    'sim videoUpscale': null,
    'sim music': null,
  });
});

test('jobs: the simulator\'s videos are OpenAI\'s one segment lower (/v1 at its bare origin)', (t) => {
  const target = { model: 'video', baseUrl: 'http://127.0.0.1:4010' };
  const sim = jobAdapterFor('sim', 'video')!.video!;
  t.is(sim.poll.build('video_1', target).url, 'http://127.0.0.1:4010/v1/videos/video_1');
  t.is(sim.poll.build('video_1', { ...target, baseUrl: 'http://127.0.0.1:4010/v1' }).url, 'http://127.0.0.1:4010/v1/videos/video_1');
  t.is(sim.download.build({ url: 'http://127.0.0.1:4010/v1/videos/video_1/content', mediaType: 'video/mp4' }, { ...target, apiKey: 'k' }).headers.authorization, 'Bearer k');
  t.is(jobAdapterFor('openai', 'video')!.video!.poll.build('video_1', { ...target, baseUrl: 'https://api.openai.com/v1' }).url, 'https://api.openai.com/v1/videos/video_1');
});

function provider(name: string, kind: ProviderConfig['kind'], options: Partial<ProviderConfig> = {}): ProviderConfig {
  return { name, kind, baseUrl: undefined, apiKeyEnv: undefined, apiKey: undefined, enabled: true, timeoutMs: 1000, settings: {}, secrets: {}, ...options };
}

test('createUpstreams takes chat adapters and default base URLs from the registry', async (t) => {
  const providers = Object.fromEntries([
    provider('oa', 'openai', { apiKey: 'sk-1' }),
    provider('an', 'anthropic'),
    provider('local', 'openai-compatible', { baseUrl: 'http://127.0.0.1:8000/v1/' }),
    provider('compat-without-url', 'openai-compatible'),
    provider('sim', 'sim'),
    provider('shared-sim', 'sim', { baseUrl: 'http://127.0.0.1:4999' }),
    provider('decide', 'system-one', { baseUrl: 'https://api.typesafe.ai' }),
    provider('music', 'suno', { baseUrl: 'https://api.sunoapi.org' }),
    provider('up', 'upscaler', { baseUrl: 'https://api.stability.ai' }),
    provider('off', 'openai', { enabled: false }),
  ].map((config) => [config.name, config]));
  const upstreams = createUpstreams(providers, 'http://127.0.0.1:4000');
  t.teardown(() => Promise.all([...upstreams.values()].map((upstream) => upstream.dispatcher.close())));
  const summary = Object.fromEntries([...upstreams.values()].map((upstream) => [upstream.name, [upstream.kind, upstream.baseUrl, upstream.adapter ?? null]]));
  t.deepEqual(summary, {
    oa: ['openai', 'https://api.openai.com/v1', openaiChatAdapter],
    an: ['anthropic', 'https://api.anthropic.com', anthropicChatAdapter],
    local: ['openai-compatible', 'http://127.0.0.1:8000/v1', openaiCompatibleChatAdapter],
    sim: ['sim', 'http://127.0.0.1:4000', anthropicChatAdapter],
    'shared-sim': ['sim', 'http://127.0.0.1:4999', anthropicChatAdapter],
    decide: ['system-one', 'https://api.typesafe.ai', null],
    music: ['suno', 'https://api.sunoapi.org', null],
    up: ['upscaler', 'https://api.stability.ai', null],
  });
  t.is(upstreams.get('oa')!.apiKey, 'sk-1');
  // Without a simulator of its own, a `sim` provider without base_url has nowhere to go.
  t.is(createUpstreams({ sim: provider('sim', 'sim') }, undefined).size, 0);
});

test('needsSimulator: only a sim provider without base_url needs the process\'s own simulator', (t) => {
  t.true(needsSimulator({ sim: provider('sim', 'sim'), oa: provider('oa', 'openai') }));
  t.false(needsSimulator({ sim: provider('sim', 'sim', { baseUrl: 'http://127.0.0.1:4999' }) }));
  t.false(needsSimulator({ oa: provider('oa', 'openai'), an: provider('an', 'anthropic') }));
});
