// What the routes of async jobs (videos, video upscale, music) share: the answer — the job as
// created, or with `wait` the job once finished (or as it is when `wait_timeout` runs out) —,
// finding the caller's own job, serving its result files, and saying when a model name is
// deprecated. Their control fields are in dialects/openai-media/job-control.ts.
import { publicJobObject } from '../../jobs/job-object.js';
import type { Job } from '../../jobs/job.js';
import { waitForJob } from '../../pipeline/jobs.js';
import type { ServerServices } from '../../services.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { Context } from '../state.js';
import { sendStoredFile } from './files.js';

export async function respondWithJob(ctx: Context, services: ServerServices, job: Job, control: { wait: boolean; wait_timeout: number }): Promise<void> {
  let current = job;
  if (control.wait) {
    const gone = new AbortController();
    const onClose = () => gone.abort();
    ctx.res.once('close', onClose); // the response closing before we answered = the client went away
    try {
      current = await waitForJob(services, job, control.wait_timeout * 1000, gone.signal);
    } finally {
      ctx.res.off('close', onClose);
    }
  }
  ctx.body = publicJobObject(current, { fileTtlMs: services.config.storage.tempTtlMs });
}

/** The model name used belongs to another catalog (or is deprecated): still served, but say so. */
export function markDeprecated(ctx: Context, services: ServerServices, requested: string | undefined, served: string): void {
  ctx.set('Deprecation', 'true');
  services.logger.warn({ request_id: ctx.state.requestId, requested, served }, 'deprecated model name used; served by its replacement');
}

/**
 * The caller's job of one of `kinds`; another account's (or another kind's) id is a 404 like an
 * unknown one, and so is a job its owner deleted (as OpenAI answers for a deleted video).
 */
export async function ownJob(ctx: Context, services: ServerServices, kinds: readonly Job['kind'][], noun: string): Promise<Job> {
  const job = await services.jobs.get(ctx.state.apiKey!.accountId, ctx.params.id ?? '');
  if (!job || !kinds.includes(job.kind) || job.deletedAt !== null) throw new GatewayError('not_found', `No ${noun} found with id '${ctx.params.id}'.`);
  return job;
}

/** Serves the n-th result file of a completed job, with Range; 409 before completion. */
export async function sendJobFile(ctx: Context, services: ServerServices, job: Job, index: number, noun: string): Promise<void> {
  if (job.status !== 'completed') {
    throw new GatewayError('content_not_ready', `The ${noun} is not ready: its status is ${job.status === 'cancelled' ? 'failed (cancelled)' : job.status}.`);
  }
  const fileId = job.result?.fileIds[index];
  if (fileId === undefined) throw new GatewayError('not_found', `The ${noun} has no file at index ${index}.`);
  const file = await services.files.get(job.accountId, fileId);
  if (!file) throw new GatewayError('content_expired', `The ${noun}'s content has expired and was removed.`);
  await sendStoredFile(ctx, services, file);
}
