import test from 'ava';
import { openaiCompatibleMediaAdapter, openaiMediaAdapter } from '../../src/vendors/openai/media.js';
import { mediaAdapterFor } from '../../src/vendors/registry.js';
import { simOpenaiMediaAdapter } from '../../src/vendors/sim/media.js';
import { systemOneAdapter } from '../../src/vendors/system-one/decisions.js';
import { upscalerAdapter } from '../../src/vendors/upscaler/image-upscale.js';
import type { MediaAdapter } from '../../src/vendors/media-types.js';

const operations = ['generateImages', 'editImages', 'speech', 'transcribe', 'embed', 'decide', 'upscaleImage'] as const;

function table(kind: string): Record<string, MediaAdapter | undefined> {
  return Object.fromEntries(operations.map((operation) => [operation, mediaAdapterFor(kind, operation)]));
}

test('openai and openai-compatible do images, audio and embeddings, nothing else', (t) => {
  const openaiOps = { generateImages: openaiMediaAdapter, editImages: openaiMediaAdapter, speech: openaiMediaAdapter, transcribe: openaiMediaAdapter, embed: openaiMediaAdapter, decide: undefined, upscaleImage: undefined };
  t.deepEqual(table('openai'), openaiOps);
  const compatible = Object.fromEntries(Object.entries(openaiOps).map(([operation, adapter]) => [operation, adapter && openaiCompatibleMediaAdapter]));
  t.deepEqual(table('openai-compatible'), compatible);
  t.is(openaiMediaAdapter.kind, 'openai');
  t.is(openaiCompatibleMediaAdapter.kind, 'openai-compatible');
});

test('system-one decides, the upscaler upscales', (t) => {
  t.deepEqual(table('system-one'), { generateImages: undefined, editImages: undefined, speech: undefined, transcribe: undefined, embed: undefined, decide: systemOneAdapter, upscaleImage: undefined });
  t.deepEqual(table('upscaler'), { generateImages: undefined, editImages: undefined, speech: undefined, transcribe: undefined, embed: undefined, decide: undefined, upscaleImage: upscalerAdapter });
  t.is(systemOneAdapter.kind, 'system-one');
  t.is(upscalerAdapter.kind, 'upscaler');
});

test('the simulator: the OpenAI media operations (under /v1), System One, Stability', (t) => {
  t.deepEqual(table('sim'), {
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

test('kinds without media, unknown kinds and non-operations give undefined', (t) => {
  for (const kind of ['anthropic', 'suno', 'nope', 'constructor', '__proto__']) t.deepEqual(Object.values(table(kind)).filter(Boolean), [], kind);
  t.is(mediaAdapterFor('openai', 'kind'), undefined);
  t.is(mediaAdapterFor('openai', 'parseError'), undefined);
});
