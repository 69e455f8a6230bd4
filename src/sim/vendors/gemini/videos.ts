// Veo on the Gemini wire: `:predictLongRunning` starts an operation (`{name:
// "models/{model}/operations/{id}"}`), GET of that name answers `{done: false}` on its first
// poll and then `{done: true, response: {generateVideoResponse: {generatedSamples: [{video:
// {uri}}]}}}`, and the uri (`/gemini/v1beta/files/{id}:download?alt=media`, key required)
// serves a deterministic MP4 (media/mp4.ts) of the asked duration and size: 16:9 or 9:16 at
// 720p or 1080p. Operations live per simulator, in memory.
import { createHash } from 'node:crypto';
import { invalid, SimError } from '../../errors.js';
import { isRecord, requireRecord, requireString } from '../../guards.js';
import { mp4Video } from '../../media/mp4.js';
import type { PrefixCache } from '../../prefix-cache.js';

interface VideoOperation {
  readonly model: string;
  readonly prompt: string;
  readonly seconds: number;
  readonly width: number;
  readonly height: number;
  polls: number;
}

const operations = new WeakMap<PrefixCache, Map<string, VideoOperation>>();

function operationsOf(cache: PrefixCache): Map<string, VideoOperation> {
  let map = operations.get(cache);
  if (!map) operations.set(cache, (map = new Map()));
  return map;
}

export function startVideo(cache: PrefixCache, model: string, body: unknown, seed: string): { name: string; prompt: string } {
  const record = requireRecord(body, 'body');
  if (!Array.isArray(record.instances) || record.instances.length !== 1) throw invalid('instances: exactly one instance', 'instances');
  const prompt = requireString(requireRecord(record.instances[0], 'instances[0]').prompt, 'instances[0].prompt');
  const parameters = isRecord(record.parameters) ? record.parameters : {};
  const aspect = parameters.aspectRatio ?? '16:9';
  const resolution = parameters.resolution ?? '720p';
  const seconds = parameters.durationSeconds ?? 8;
  if (aspect !== '16:9' && aspect !== '9:16') throw invalid('parameters.aspectRatio: 16:9 or 9:16', 'parameters');
  if (resolution !== '720p' && resolution !== '1080p') throw invalid('parameters.resolution: 720p or 1080p', 'parameters');
  if (seconds !== 4 && seconds !== 6 && seconds !== 8) throw invalid('parameters.durationSeconds: 4, 6 or 8', 'parameters');
  const [long, short] = resolution === '720p' ? [1280, 720] : [1920, 1080];
  const id = createHash('sha256').update(`${seed}:${operationsOf(cache).size}`).digest('hex').slice(0, 16);
  operationsOf(cache).set(id, { model, prompt, seconds, width: aspect === '16:9' ? long : short, height: aspect === '16:9' ? short : long, polls: 0 });
  return { name: `models/${model}/operations/${id}`, prompt };
}

export function pollVideo(cache: PrefixCache, model: string, id: string, origin: string): Record<string, unknown> {
  const operation = operationsOf(cache).get(id);
  if (!operation || operation.model !== model) throw new SimError(404, `Operation models/${model}/operations/${id} not found.`);
  const name = `models/${model}/operations/${id}`;
  if (operation.polls++ === 0) return { name, done: false };
  return { name, done: true, response: { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse', generateVideoResponse: { generatedSamples: [{ video: { uri: `${origin}/gemini/v1beta/files/${id}:download?alt=media` } }] } } };
}

export function videoFile(cache: PrefixCache, id: string): Buffer {
  const operation = operationsOf(cache).get(id);
  if (!operation || operation.polls < 2) throw new SimError(404, `File ${id} not found.`);
  return mp4Video({ width: operation.width, height: operation.height, seconds: operation.seconds, seed: `${operation.model}:${operation.prompt}:${id}` });
}
