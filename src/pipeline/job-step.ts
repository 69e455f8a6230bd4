// One step of an async job, as the job runner (pipeline/job-runner.ts) calls it for a claimed job: a job
// past its deadline fails, a job whose model left the catalog fails, a background response runs
// here (background-responses.ts), a job with an upstream id
// is polled (job-poll.ts), a job found mid-submit is reconciled, any other is submitted
// (job-submit.ts). Each ends by storing its state; what it throws the runner retries later.
import type { CatalogModel } from '../catalog/catalog.js';
import type { Job } from '../jobs/job.js';
import type { JobStep } from './job-context.js';
import { runBackgroundResponse } from './background-responses.js';
import { failJob } from './job-end.js';
import { pollJob } from './job-poll.js';
import { reconcileJob, submitJobUpstream } from './job-submit.js';

export async function advanceJob(step: JobStep, job: Job): Promise<void> {
  const { services, owner } = step;
  if (services.now() >= job.deadlineAt) {
    await failJob(services, job, owner, { code: 'deadline_exceeded', message: `the job did not finish within ${Math.round(services.config.jobs.deadlineMs / 1000)} s` });
    return;
  }
  let model: CatalogModel;
  try {
    model = services.catalog.resolve(job.model);
  } catch {
    await failJob(services, job, owner, { code: 'model_unavailable', message: `the model ${job.model} is no longer configured on this gateway` });
    return;
  }
  if (job.kind === 'response') await runBackgroundResponse(step, job, model);
  else if (job.upstreamId !== null) await pollJob(step, job, model);
  else if (job.submitState === 'submitting') await reconcileJob(step, job);
  else await submitJobUpstream(step, job, model);
}
