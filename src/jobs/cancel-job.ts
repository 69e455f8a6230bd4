// An operator cancels a queued or running job (`gateway jobs cancel`, POST /admin/v1/jobs/:id/cancel):
// its hold is released, nothing is charged, the audit row is written with the change.
// JobNotFoundError for an unknown id; JobAlreadyEndedError when it had already ended (nothing changed).
import type { Job } from './job.js';
import type { JobStore } from './job-store.js';
import { JobAlreadyEndedError, JobNotFoundError } from './present.js';

export async function cancelJob(store: JobStore, id: string, actor: string): Promise<Job> {
  const before = await store.get(null, id);
  if (!before) throw new JobNotFoundError(id);
  const cancelled = await store.cancel(id, { actor });
  const job = (await store.get(null, id))!;
  if (!cancelled) throw new JobAlreadyEndedError(job.id, job.status);
  return job;
}
