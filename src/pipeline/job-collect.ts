// Collecting a completed job: its results downloaded and stored as files of the account, then
// the job ended in one transaction with its settle, history line and webhook (job-end.ts). A download that fails, or a blob store that cannot take the result, is retried
// later; a runner that lost the job meanwhile stores nothing more. Downloads are whole buffers
// (media-transport caps their size), stored with one put each.
import type { CatalogModel } from '../catalog/catalog.js';
import type { Job, JobResult } from '../jobs/job.js';
import type { UpstreamJobState } from '../model/jobs.js';
import type { MediaTarget } from '../vendors/media-types.js';
import { BlobStoreUnavailableError } from '../storage/blob-store.js';
import { runMediaOperation } from '../vendors/shared/media-transport.js';
import { backoffMs, type JobStep, type JobVendor, stepSignal } from './job-context.js';
import { completeJob, failJob } from './job-end.js';
import { mediaJobRules } from './job-kinds.js';

export async function collectJob(step: JobStep, job: Job, model: CatalogModel, vendor: JobVendor, target: MediaTarget, state: Extract<UpstreamJobState, { state: 'completed' }>): Promise<void> {
  const { services, owner, lease } = step;
  const { jobs, files, logger, config } = services;
  const { upstream, adapter, operations } = vendor;
  const kind = mediaJobRules(job.kind);
  const assets = state.assets.slice(0, kind.resultCount(model, state.assets.length));
  if (assets.length === 0) {
    await failJob(services, job, owner, { code: 'upstream_empty', message: 'the upstream reported success but offered no result to download', upstreamStatus: state.raw });
    return;
  }
  const fileIds: number[] = [];
  for (const [index, asset] of assets.entries()) {
    let data: Uint8Array;
    try {
      data = await runMediaOperation(upstream, operations.download, asset, target, stepSignal(upstream, lease), adapter.parseError);
    } catch (error) {
      if (lease.lost) return;
      // The result download failed; it is retried after the backoff.
      const wait = backoffMs(job.polls);
      services.upstreamObserver.failure({ operation: 'job_download', provider: upstream.name, upstreamModel: target.model, model: job.model, error, attempt: job.polls + 1, fallback: null, jobId: job.id, retryInMs: wait });
      await jobs.reschedule(job, owner, { nextRunAt: services.now() + wait, polled: true });
      return;
    }
    if (!(await jobs.renewLease(job, owner))) return; // another runner or the operator took over
    const extension = asset.mediaType === 'video/mp4' ? 'mp4' : 'mp3';
    let file;
    try {
      file = await files.save(job.accountId, kind.filePurpose, asset.mediaType, data, { filename: `${job.id}-${index}.${extension}` });
    } catch (error) {
      if (!(error instanceof BlobStoreUnavailableError)) throw error;
      // The results stay upstream and the money held: collected again once the store is back
      // (files stored by this attempt are temporary and expire unreferenced).
      const retryInMs = backoffMs(job.polls);
      logger.warn({ err: error, job_id: job.id, retry_in_ms: retryInMs }, 'job result cannot be stored: the blob store is unavailable; retrying later');
      await jobs.reschedule(job, owner, { nextRunAt: services.now() + retryInMs, polled: true });
      return;
    }
    fileIds.push(file.id);
  }
  const result: JobResult = { fileIds, ...kind.resultDetails(job, assets) };
  const ended = await completeJob(services, job, owner, { actualUnits: kind.actualUnits(job, state, config.currency.usdRub), result, upstreamStatus: state.raw, mediaSeconds: kind.mediaSeconds(job, result) });
  if (ended) logger.info({ job_id: job.id, files: fileIds.length, runner: owner }, 'job completed');
}
