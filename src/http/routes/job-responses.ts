// What the create endpoints of async jobs share: the control fields (idempotency, webhook,
// wait) and the answer — the job as created, or with `wait` the job once finished (or as it
// is when `wait_timeout` runs out).
import { z } from 'zod';
import { publicJobObject } from '../../jobs/job-object.js';
import type { Job } from '../../jobs/job.js';
import { waitForJob } from '../../pipeline/jobs.js';
import type { ServerServices } from '../../services.js';
import type { Context } from '../state.js';

export const jobControlFields = {
  idempotency_key: z.string().min(1).max(128).optional(),
  webhook_url: z.string().min(1).max(2048).optional(),
  wait: z.boolean().default(false),
  /** Seconds a `wait` request may take. */
  wait_timeout: z.number().int().min(1).max(300).default(60),
};

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
