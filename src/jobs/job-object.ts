// The public JSON of a job: the OpenAI video object (GET /v1/videos/{id}) for videos and
// video upscales, a music object of the same spirit for /v1/audio/music, both with
// `charged_rub` (a background response: the common part). Built from the job row alone, so webhooks and GETs show the same thing.
import { formatRub } from '../util/money.js';
import type { Job } from './job.js';

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

function errorOf(job: Job): { code: string; message: string } | null {
  if (job.status !== 'failed' && job.status !== 'cancelled') return null;
  return { code: job.errorCode ?? 'failed', message: job.errorMessage ?? 'the job failed' };
}

/** `cancelled` is shown as `failed` with error code "cancelled": the OpenAI status set has no cancelled. */
function statusOf(job: Job): string {
  return job.status === 'cancelled' ? 'failed' : job.status;
}

export function publicJobObject(job: Job, options: { fileTtlMs: number }): Record<string, unknown> {
  const completedAt = seconds(job.completedAt);
  const expiresAt = job.status === 'completed' && job.completedAt !== null ? seconds(job.completedAt + options.fileTtlMs) : null;
  const common = {
    id: job.id,
    status: statusOf(job),
    progress: job.progress,
    model: job.model,
    created_at: seconds(job.createdAt),
    completed_at: completedAt,
    expires_at: expiresAt,
    error: errorOf(job),
    charged_rub: formatRub(job.chargedUnits),
    held_rub: formatRub(job.status === 'queued' || job.status === 'in_progress' ? job.holdUnits : 0n),
  };
  const request = job.request;
  // A background response's own object is the Responses one (GET /v1/responses/{id}); operators see the job.
  if (job.kind === 'response') return { ...common, object: 'response' };
  if (job.kind === 'music') {
    const tracks = (job.result?.tracks ?? []).map((track, index) => ({
      index,
      file_id: job.result!.fileIds[index] ?? null,
      duration: track.durationSeconds,
      title: track.title,
      tags: track.tags,
    }));
    return {
      ...common,
      object: 'music',
      mode: request.mode,
      prompt: request.prompt ?? null,
      lyrics: request.lyrics ?? null,
      style: request.style ?? null,
      title: request.title ?? null,
      instrumental: request.instrumental,
      tracks,
    };
  }
  const video = {
    ...common,
    object: 'video',
    seconds: String(request.seconds),
    size: job.result?.size ?? request.size,
    prompt: request.prompt ?? null,
    remixed_from_video_id: null,
    file_id: job.result?.fileIds[0] ?? null,
  };
  if (job.kind === 'video_upscale') {
    return { ...video, upscale_factor: request.upscale_factor, creativity: request.creativity, source_file_id: request.video_file_id ?? null };
  }
  return video;
}
