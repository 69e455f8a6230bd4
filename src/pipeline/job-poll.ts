// Polling a submitted job: its progress stored as it moves, a vendor status nobody documented
// kept and polled on, a failure ending the job (its hold released), a completion collected
// (job-collect.ts). A poll that fails transiently is retried after the vendor's Retry-After or
// the backoff.
import type { CatalogModel } from '../catalog/catalog.js';
import type { Job } from '../jobs/job.js';
import type { UpstreamJobState } from '../model/jobs.js';
import { runMediaOperation } from '../vendors/shared/media-transport.js';
import { UpstreamError } from '../vendors/types.js';
import { collectJob } from './job-collect.js';
import { backoffMs, type JobStep, jobVendor, mediaTarget, stepSignal } from './job-context.js';
import { failJob } from './job-end.js';

export async function pollJob(step: JobStep, job: Job, model: CatalogModel): Promise<void> {
  const { services, owner, lease } = step;
  const { jobs, logger } = services;
  const vendor = jobVendor(services, job.provider, job.kind);
  if (!vendor) {
    await failJob(services, job, owner, { code: 'provider_unavailable', message: `the provider ${job.provider} of this job is no longer configured` });
    return;
  }
  const { upstream, adapter, operations } = vendor;
  const target = mediaTarget(upstream, job.upstreamModel ?? '');
  let state: UpstreamJobState;
  try {
    state = await runMediaOperation(upstream, operations.poll, job.upstreamId!, target, stepSignal(upstream, lease), adapter.parseError);
  } catch (error) {
    if (lease.lost) return;
    const failure = { operation: 'job_poll', provider: upstream.name, upstreamModel: job.upstreamModel ?? '', model: job.model, error, attempt: job.polls + 1, fallback: null, jobId: job.id };
    if (error instanceof UpstreamError && !error.retryable) {
      services.upstreamObserver.failure(failure);
      await failJob(services, job, owner, { code: 'upstream_error', message: error.message });
      return;
    }
    const wait = error instanceof UpstreamError && error.retryAfterMs ? error.retryAfterMs : backoffMs(job.polls);
    // The job poll failed; it is retried after `wait`.
    services.upstreamObserver.failure({ ...failure, retryInMs: wait });
    await jobs.reschedule(job, owner, { nextRunAt: services.now() + wait, polled: true });
    return;
  }
  const next = services.now() + backoffMs(job.polls);
  switch (state.state) {
    case 'queued':
    case 'running':
      await jobs.reschedule(job, owner, {
        status: state.state === 'running' || job.status === 'in_progress' ? 'in_progress' : 'queued',
        progress: Math.max(job.progress, Math.min(99, Math.round(state.progress ?? job.progress))),
        upstreamStatus: state.raw,
        nextRunAt: next,
        polled: true,
      });
      return;
    case 'unknown':
      // A status the vendor never documented: keep the job as it is and keep looking.
      logger.warn({ job_id: job.id, provider: upstream.name, upstream_status: state.raw }, 'unknown upstream job status; still polling');
      await jobs.reschedule(job, owner, { upstreamStatus: state.raw, nextRunAt: next, polled: true });
      return;
    case 'failed':
      await failJob(services, job, owner, { code: state.code, message: state.message, upstreamStatus: state.raw });
      return;
    case 'completed':
      await collectJob(step, job, model, vendor, target, state);
  }
}
