// OpenAI Videos (wire-formats.md §5): POST /v1/videos (JSON, or multipart as openai-node
// always sends, with an optional `input_reference` image), GET /v1/videos/{id} (the Video
// object as of now), GET /v1/videos/{id}/content (the MP4 once completed; before that a 404
// like OpenAI's "not ready" answer). The MP4 has exactly the requested size and seconds.
import { randomBytes } from 'node:crypto';
import type { SimContext } from '../context.js';
import { sendJson } from '../context.js';
import { invalid, SimError } from '../errors.js';
import { stripMagic } from '../faults.js';
import { isRecord } from '../guards.js';
import { applyFaults, readForm, rawBodyOf, requiredString, sendBytes } from './common.js';
import { mp4Video } from './mp4.js';
import { formFields } from './multipart.js';
import { parseJobBehaviour, SimJobs, stripJobMagic, submitSimJob, type SimJob } from './sim-jobs.js';

interface VideoDetails {
  readonly model: string;
  readonly prompt: string;
  readonly seconds: number;
  readonly width: number;
  readonly height: number;
  readonly hasReference: boolean;
}

const videos = new SimJobs<VideoDetails>('videos', 'video_sim', randomBytes(3).toString('hex'));

/** The request as fields, from JSON or multipart. */
function videoFields(context: SimContext): { fields: Record<string, unknown>; hasReference: boolean } {
  const contentType = String(context.request.headers['content-type'] ?? '');
  if (contentType.startsWith('multipart/form-data')) {
    const parts = readForm(context);
    const reference = parts.find((part) => part.name === 'input_reference' && part.filename !== undefined);
    return { fields: Object.fromEntries(formFields(parts)), hasReference: reference !== undefined || formFields(parts).has('input_reference[image_url]') };
  }
  let body: unknown;
  try {
    body = JSON.parse(rawBodyOf(context).toString('utf8'));
  } catch {
    throw invalid('the request body is not valid JSON');
  }
  if (!isRecord(body)) throw invalid('the request body must be a JSON object');
  return { fields: body, hasReference: body.input_reference !== undefined && body.input_reference !== null };
}

/** POST /v1/videos */
export async function handleCreateVideo(context: SimContext): Promise<void> {
  const { fields, hasReference } = videoFields(context);
  const prompt = requiredString(fields.prompt, 'prompt');
  if (prompt.length === 0) throw invalid('prompt: must not be empty', 'prompt');
  const secondsText = fields.seconds === undefined ? '4' : String(fields.seconds);
  if (!/^\d{1,3}$/.test(secondsText) || Number(secondsText) < 1) throw invalid(`Invalid value for 'seconds': ${JSON.stringify(fields.seconds)}.`, 'seconds');
  const size = fields.size === undefined ? '720x1280' : String(fields.size);
  const match = /^(\d{2,4})x(\d{2,4})$/.exec(size);
  if (!match || Number(match[1]) < 16 || Number(match[2]) < 16 || Number(match[1]) > 3840 || Number(match[2]) > 3840) throw invalid(`Invalid value for 'size': ${JSON.stringify(size)}.`, 'size');
  if (!(await applyFaults(context, prompt))) return;
  const model = typeof fields.model === 'string' ? fields.model : 'sora-2';
  const job = await submitSimJob(context, videos, parseJobBehaviour(prompt), {
    model,
    prompt: stripJobMagic(stripMagic(prompt)),
    seconds: Number(secondsText),
    width: Number(match[1]),
    height: Number(match[2]),
    hasReference,
  });
  if (job) sendJson(context, 200, videoObject(job));
}

function videoObject(job: SimJob<VideoDetails>): Record<string, unknown> {
  const { phase, progress } = videos.phase(job);
  const details = job.details;
  const completedAt = phase === 'completed' || phase === 'failed' ? Math.floor((job.createdAt + job.behaviour.durationMs) / 1000) : null;
  const status = phase === 'running' ? (job.behaviour.unknownStatus ? 'rendering_frames' : 'in_progress') : phase;
  return {
    id: job.id,
    object: 'video',
    created_at: Math.floor(job.createdAt / 1000),
    status,
    model: details.model,
    progress,
    seconds: String(details.seconds),
    size: `${details.width}x${details.height}`,
    prompt: details.prompt,
    completed_at: completedAt,
    expires_at: phase === 'completed' && completedAt !== null ? completedAt + 3600 : null,
    error: phase === 'failed' ? { code: 'video_generation_failed', message: 'The simulated video generation failed ([[sim:job-fail]]).' } : null,
    remixed_from_video_id: null,
  };
}

function findVideo(id: string): SimJob<VideoDetails> {
  const job = videos.get(id);
  if (!job) throw new SimError(404, `Video with id '${id}' not found.`, 'video_id', 'invalid_request_error', 'video_not_found');
  return job;
}

/** GET /v1/videos/{id} */
export function handleRetrieveVideo(context: SimContext, id: string): void {
  const job = findVideo(id);
  videos.poll(id);
  sendJson(context, 200, videoObject(job));
}

/** GET /v1/videos/{id}/content */
export function handleVideoContent(context: SimContext, id: string, variant: string | null): void {
  const job = findVideo(id);
  if (variant !== null && variant !== 'video') throw invalid(`the simulator only renders the "video" variant, not "${variant}"`, 'variant');
  const { phase } = videos.phase(job);
  if (phase !== 'completed') throw new SimError(404, `Video '${id}' is not ready: its status is ${phase === 'running' ? 'in_progress' : phase}.`, 'video_id', 'invalid_request_error', 'video_not_ready');
  sendBytes(context, mp4Video({ width: job.details.width, height: job.details.height, seconds: job.details.seconds, seed: job.id }), 'video/mp4');
}
