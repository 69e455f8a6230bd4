// A video upscaler, Stability-style and asynchronous (our own protocol; see src/sim/README.md):
// POST /v2beta/video/upscale (multipart `video` MP4, `prompt`, `upscale_factor` 1.5–3,
// `creativity` 0–1) → {id}; GET /v2beta/results/{id} → 202 while running, then 200 with the
// result's URL, its size and duration, and what the job cost (USD 0.01 per output
// megapixel-second unless [[sim:cost=X]]). The input's size and duration are read from the
// MP4 itself; the output is that × factor (even sides), same duration.
import { randomBytes } from 'node:crypto';
import { readMp4Info } from '../../media-files/mp4.js';
import type { SimContext } from '../context.js';
import { sendJson } from '../context.js';
import { invalid, SimError } from '../errors.js';
import { applyFaults, optionalNumber, readForm, sendBytes } from './common.js';
import { mp4Video } from './mp4.js';
import { formFields } from './multipart.js';
import { originOf, parseJobBehaviour, SimJobs, submitSimJob, type SimJob } from './sim-jobs.js';

interface UpscaleDetails {
  readonly width: number;
  readonly height: number;
  readonly seconds: number;
  readonly costUsd: string;
}

const upscales = new SimJobs<UpscaleDetails>('video_upscales', 'vup_', randomBytes(4).toString('hex'));

/** round(side × factor) to an even number, as encoders need. */
function scaled(side: number, factor: number): number {
  return Math.max(2, Math.round((side * factor) / 2) * 2);
}

/** POST /v2beta/video/upscale */
export async function handleVideoUpscale(context: SimContext): Promise<void> {
  const parts = readForm(context);
  const fields = formFields(parts);
  const video = parts.find((part) => part.name === 'video' && part.filename !== undefined);
  if (!video) throw new SimError(400, 'video: required', 'video');
  const info = readMp4Info(video.data);
  if (!info) throw invalid('video: not an MP4 file the upscaler can read', 'video');
  const factor = optionalNumber(fields.get('upscale_factor'), 'upscale_factor', 1.5, 3) ?? 1.5;
  optionalNumber(fields.get('creativity'), 'creativity', 0, 1);
  const prompt = fields.get('prompt') ?? '';
  if (!(await applyFaults(context, prompt))) return;
  const behaviour = parseJobBehaviour(prompt);
  const width = scaled(info.width, factor);
  const height = scaled(info.height, factor);
  const megapixelSeconds = ((width * height) / 1_000_000) * info.durationSeconds;
  const costUsd = behaviour.costUsd ?? (Math.round(megapixelSeconds * 0.01 * 10_000) / 10_000).toFixed(4);
  const job = await submitSimJob(context, upscales, behaviour, { width, height, seconds: info.durationSeconds, costUsd });
  if (job) sendJson(context, 200, { id: job.id });
}

function result(context: SimContext, job: SimJob<UpscaleDetails>): { status: number; body: Record<string, unknown> } {
  const { phase, progress } = upscales.phase(job);
  if (phase === 'queued' || phase === 'running') {
    return { status: 202, body: { id: job.id, status: job.behaviour.unknownStatus && phase === 'running' ? 'denoising' : 'in-progress', progress } };
  }
  if (phase === 'failed') return { status: 200, body: { id: job.id, status: 'failed', error: { code: 'upscale_failed', message: 'The simulated upscale failed ([[sim:job-fail]]).' } } };
  const { width, height, seconds, costUsd } = job.details;
  return {
    status: 200,
    body: { id: job.id, status: 'succeeded', video_url: `${originOf(context.request.headers.host)}/sim-files/video-upscale/${job.id}.mp4`, width, height, seconds, cost: { currency: 'USD', amount: costUsd } },
  };
}

/** GET /v2beta/results/{id} */
export function handleUpscaleResult(context: SimContext, id: string): void {
  const job = upscales.poll(id);
  if (!job) throw new SimError(404, `no upscale with id ${id}`, 'id');
  const answer = result(context, job);
  sendJson(context, answer.status, answer.body);
}

/** GET /sim-files/video-upscale/{id}.mp4 */
export function handleUpscaleFile(context: SimContext, id: string): boolean {
  const job = upscales.get(id);
  if (!job || upscales.phase(job).phase !== 'completed') return false;
  sendBytes(context, mp4Video({ width: job.details.width, height: job.details.height, seconds: job.details.seconds, seed: job.id }), 'video/mp4');
  return true;
}
