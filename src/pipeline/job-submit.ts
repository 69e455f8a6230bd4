// Sending a job upstream exactly once. A first submit tries the model's routes with the one
// fallback loop (route-fallback.ts): each send is recorded (`submitting`, idempotency key,
// route) and committed before it goes out, and its upstream id stored after. A job found
// `submitting` — its runner died, lost its lease, or the answer was lost — is reconciled: re-sent
// to the same route with the same key where the vendor honours one, looked up by that key where
// the vendor names jobs with it (Kling's external_task_id), else failed and released.
import type { CatalogModel } from '../catalog/catalog.js';
import type { Job } from '../jobs/job.js';
import type { InputFile } from '../model/media.js';
import { BlobMissingError, BlobStoreUnavailableError } from '../storage/blob-store.js';
import { canReconcile, type NamedSubmit, type SubmittedJob, submitWithKey } from '../vendors/job-types.js';
import { runMediaOperation } from '../vendors/shared/media-transport.js';
import { UpstreamError } from '../vendors/types.js';
import { backoffMs, type JobStep, type JobVendor, jobVendor, mediaTarget, stepSignal } from './job-context.js';
import { failJob } from './job-end.js';
import { mediaJobRules } from './job-kinds.js';
import { availableRoutes, cooldownMs, RouteCannotServe, tryRoutes } from './route-fallback.js';

/**
 * The idempotency key of a job's submit: derived from the job id alone, so every runner, after
 * any crash, sends the same one, and the vendor answers the job it already made for it.
 */
export function submitKeyOf(job: Pick<Job, 'id' | 'submitKey'>): string {
  return job.submitKey ?? `gw-${job.id}`;
}

/** A first submit: the available routes in order, each recorded before it is sent. */
export async function submitJobUpstream(step: JobStep, job: Job, model: CatalogModel): Promise<void> {
  const { services, owner } = step;
  const { jobs, logger, routeCooldowns } = services;
  const built = await upstreamRequest(step, job);
  if (built === undefined) return;
  const { request } = built;
  const routes = availableRoutes(model.routes, routeCooldowns, services.now());
  let lastError: UpstreamError | undefined;
  if (routes.length > 0) {
    let sends = 0;
    try {
      await tryRoutes(
        routes,
        routeCooldowns,
        async (route) => {
          const vendor = jobVendor(services, route.provider.name, job.kind);
          if (!vendor) throw new RouteCannotServe(route.provider.name, mediaJobRules(job.kind).operation);
          const outcome = await send(step, job, vendor, route.model, request, job.submits + ++sends);
          if (outcome.kind === 'refused') throw outcome.error;
        },
        // Refused: nothing was made upstream, so another route may take it if the refusal is transient.
        (error) => error instanceof UpstreamError && error.retryable,
        services.now,
        // A refusal is logged here, with the route tried next; any other failure by `send`.
        (attempt) => services.upstreamObserver.attempted({ operation: 'job_submit', model: job.model, jobId: job.id }, { ...attempt, attempt: job.submits + attempt.attempt }),
      );
      return;
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      if (!(error instanceof RouteCannotServe)) {
        if (!error.retryable) {
          await failJob(services, job, owner, { code: 'upstream_rejected', message: error.message });
          return;
        }
        lastError = error;
      }
    }
  }
  if (lastError === undefined) {
    // No route can take the job right now (all pausing, or none speaks this operation): wait.
    logger.warn({ job_id: job.id, model: model.id }, 'no route can take this job now');
  } else {
    // Each refusal was logged as it came (UpstreamObserver): this says what happens next.
    logger.warn({ job_id: job.id, model: model.id, retry_in_ms: backoffMs(job.polls + 2) }, 'every route refused the job submit; retrying');
  }
  // Every route refused outright: nothing was made upstream, the next attempt starts afresh.
  await jobs.reschedule(job, owner, { nextRunAt: services.now() + backoffMs(job.polls + 2), polled: true, submitState: null });
}

/**
 * A job found `submitting`: a submit went out and its outcome was never stored. Never sent
 * blindly again: re-sent to the same route with the same idempotency key where the vendor
 * honours one (it answers the job it already made, or makes it now if the first never
 * arrived); looked up by its key where the vendor names jobs with it; otherwise failed, hold
 * released.
 */
export async function reconcileJob(step: JobStep, job: Job): Promise<void> {
  const { services, owner } = step;
  const { logger } = services;
  const vendor = jobVendor(services, job.provider, job.kind);
  if (!vendor) {
    await failJob(services, job, owner, { code: 'provider_unavailable', message: `the provider ${job.provider} this job was being sent to is no longer configured` });
    return;
  }
  const provider = vendor.upstream.name;
  if (vendor.operations.named) {
    await reconcileByName(step, job, vendor, vendor.operations.named);
    return;
  }
  if (vendor.adapter.idempotencyHeader === undefined) {
    await failUncertain(step, job, provider);
    return;
  }
  logger.info({ job_id: job.id, provider, submit_key: job.submitKey }, 'job found mid-submit; re-sending with its idempotency key');
  const built = await upstreamRequest(step, job);
  if (built === undefined) return;
  const outcome = await send(step, job, vendor, job.upstreamModel ?? '', built.request, job.submits + 1);
  if (outcome.kind === 'refused') await resendRefused(step, job, provider, outcome.error);
}

/** A reconciling re-send the vendor refused: failed when for good, else tried again later on the same route. */
async function resendRefused(step: JobStep, job: Job, provider: string, error: UpstreamError): Promise<void> {
  const { services, owner } = step;
  const { jobs, logger } = services;
  const failure = { operation: 'job_submit', provider, upstreamModel: job.upstreamModel ?? '', model: job.model, error, attempt: job.submits + 1, fallback: null, jobId: job.id };
  // 409: a vendor may answer a key whose first request it is still working on so (Stripe
  // does): the job may well exist, so it is asked again, like a 429.
  if (!error.retryable && error.status !== 409) {
    services.upstreamObserver.failure(failure);
    await failJob(services, job, owner, { code: 'upstream_rejected', message: error.message });
    return;
  }
  // Refused for now (409, 429, 503): that says nothing of the first send, so the job stays
  // `submitting` on this route, to be re-sent with the same key — never to another route.
  const wait = error.retryAfterMs ? cooldownMs(error.retryAfterMs) : backoffMs(job.polls + 2);
  services.upstreamObserver.failure({ ...failure, retryInMs: wait });
  logger.warn({ job_id: job.id, provider, retry_in_ms: wait }, 'job re-send refused for now; retrying with the same key');
  await jobs.reschedule(job, owner, { nextRunAt: services.now() + wait, polled: true });
}

/**
 * A job found `submitting` at a vendor that names its jobs with the gateway's key: looked up by
 * that key. Found: its upstream id is stored, as the lost answer would have. Not found (the
 * first submit never arrived): sent now under the same name. Refused that name — a first
 * submit that arrived late made the job meanwhile — it is looked up once more before failing.
 */
async function reconcileByName(step: JobStep, job: Job, vendor: JobVendor, named: NamedSubmit<unknown>): Promise<void> {
  const { logger } = step.services;
  const provider = vendor.upstream.name;
  const built = await upstreamRequest(step, job);
  if (built === undefined) return;
  const found = await lookUpByName(step, job, vendor, named, built.request);
  if (found !== 'none') return;
  logger.info({ job_id: job.id, provider, submit_key: submitKeyOf(job) }, 'job found mid-submit is unknown upstream under its key; sending it now');
  const outcome = await send(step, job, vendor, job.upstreamModel ?? '', built.request, job.submits + 1);
  if (outcome.kind !== 'refused') return;
  if (!outcome.error.retryable && (await lookUpByName(step, job, vendor, named, built.request)) !== 'none') return;
  await resendRefused(step, job, provider, outcome.error);
}

/**
 * The vendor's job under the job's key: `handled` when found (its upstream id stored) or when
 * the look-up failed (the job rescheduled, or failed when the look-up is refused for good);
 * `none` when the vendor has no job by that name.
 */
async function lookUpByName(step: JobStep, job: Job, vendor: JobVendor, named: NamedSubmit<unknown>, request: unknown): Promise<'handled' | 'none'> {
  const { services, owner, lease } = step;
  const { jobs, logger } = services;
  const { upstream, adapter } = vendor;
  const provider = upstream.name;
  const upstreamModel = job.upstreamModel ?? '';
  const key = submitKeyOf(job);
  let found: SubmittedJob | undefined;
  try {
    found = await runMediaOperation(upstream, named.find, { key, request }, mediaTarget(upstream, upstreamModel), stepSignal(upstream, lease), adapter.parseError);
  } catch (error) {
    if (lease.lost) return 'handled';
    if (!(error instanceof UpstreamError)) throw error;
    // 404: the vendor has no job by that name; anything else leaves the question open.
    if (error.status === 404) return 'none';
    const failure = { operation: 'job_submit', provider, upstreamModel, model: job.model, error, attempt: job.submits, fallback: null, jobId: job.id };
    if (!error.retryable) {
      services.upstreamObserver.failure(failure);
      const message = `the gateway could not learn whether ${provider} received this job: looking it up by its key failed (${error.message}); the job was failed and nothing was charged rather than risk paying for it twice`;
      await failJob(services, job, owner, { code: 'submit_uncertain', message });
      return 'handled';
    }
    const wait = error.retryAfterMs ? cooldownMs(error.retryAfterMs) : backoffMs(job.polls + 2);
    services.upstreamObserver.failure({ ...failure, retryInMs: wait });
    logger.warn({ job_id: job.id, provider, retry_in_ms: wait }, 'job found mid-submit could not be looked up by its key now; retrying');
    await jobs.reschedule(job, owner, { nextRunAt: services.now() + wait, polled: true });
    return 'handled';
  }
  if (!found) return 'none';
  logger.info({ job_id: job.id, provider, upstream_id: found.upstreamId, submit_key: key }, 'job found mid-submit was made upstream under its key; its upstream id stored');
  await jobs.reschedule(job, owner, { upstreamId: found.upstreamId, provider, upstreamModel, nextRunAt: services.now() + backoffMs(0) });
  return 'handled';
}

type SendOutcome = { kind: 'submitted' | 'handled' } | { kind: 'refused'; error: UpstreamError };

/**
 * One submit to one route: recorded (`submitting`, key, route) and committed, sent with the
 * key, and its upstream id stored. `submitted`: stored; `handled`: the job was rescheduled or
 * failed here, or the lease is gone; `refused`: the vendor answered with an error (or the
 * connection was refused), so nothing was made upstream.
 */
async function send(step: JobStep, job: Job, vendor: JobVendor, upstreamModel: string, request: unknown, attempt: number): Promise<SendOutcome> {
  const { services, owner, lease } = step;
  const { jobs, logger } = services;
  const { upstream, adapter, operations } = vendor;
  const key = submitKeyOf(job);
  if (!(await jobs.markSubmitting(job, owner, { provider: upstream.name, upstreamModel, key }))) return { kind: 'handled' };
  let upstreamId: string;
  try {
    const submit = submitWithKey(adapter, operations, key);
    ({ upstreamId } = await runMediaOperation(upstream, submit, request, mediaTarget(upstream, upstreamModel), stepSignal(upstream, lease), adapter.parseError));
  } catch (error) {
    if (lease.lost) return { kind: 'handled' };
    const reconcilable = canReconcile(adapter, operations);
    if (isRefusal(error, reconcilable)) return { kind: 'refused', error };
    // Timed out, cut off, or a 2xx we could not read: the vendor may have made the job.
    const failure = { operation: 'job_submit', provider: upstream.name, upstreamModel, model: job.model, error, attempt, fallback: null, jobId: job.id };
    if (!reconcilable) {
      services.upstreamObserver.failure(failure);
      await failUncertain(step, job, upstream.name, error);
      return { kind: 'handled' };
    }
    const wait = backoffMs(job.polls);
    services.upstreamObserver.failure({ ...failure, retryInMs: wait });
    logger.warn({ job_id: job.id, provider: upstream.name, retry_in_ms: wait }, `job submit outcome unknown; ${operations.named ? 'looking it up by its key' : 're-sending with the same idempotency key'}`);
    await jobs.reschedule(job, owner, { nextRunAt: services.now() + wait, polled: true });
    return { kind: 'handled' };
  }
  logger.info({ job_id: job.id, provider: upstream.name, upstream_id: upstreamId, submits: job.submits + 1 }, 'job submitted upstream');
  const stored = await jobs.reschedule(job, owner, { upstreamId, provider: upstream.name, upstreamModel, nextRunAt: services.now() + backoffMs(0) });
  // Lost meanwhile: the new owner finds the job `submitting` and reconciles it by its key.
  if (!stored) logger.warn({ job_id: job.id, upstream_id: upstreamId }, 'job submitted but its lease was lost before the upstream id was stored; the new owner reconciles it');
  return { kind: 'submitted' };
}

/** A submit whose outcome cannot be known at a vendor without an idempotency key: fail, release, say why. */
async function failUncertain(step: JobStep, job: Job, provider: string, error?: unknown): Promise<void> {
  const message =
    `the gateway could not learn whether ${provider} received this job (${error ? `the submit was cut off: ${(error as Error).message}` : 'its runner stopped before the answer to the submit was stored'}), ` +
    `and ${provider} offers no idempotency key or job list to find out; the job was failed and nothing was charged rather than risk paying for it twice`;
  step.services.logger.error({ err: error, job_id: job.id, provider }, 'job submit outcome unknown at a vendor without idempotency; failing the job and releasing its hold');
  await failJob(step.services, job, step.owner, { code: 'submit_uncertain', message });
}

/**
 * Whether a failed submit shows the vendor made nothing: it answered with an error status (or
 * an error envelope), or the connection was refused before the request left. A timeout, a cut
 * connection or a 2xx that could not be read may hide a job the vendor made. With an
 * idempotency key, 500, 502 and 504 count as unknown too (the work may have run behind them):
 * re-sending with the key is free, while moving to another route could pay twice. Without a
 * key they stay refusals — failing every job on a passing 502 would cost more than the rare
 * double job they might hide.
 */
function isRefusal(error: unknown, keyed: boolean): error is UpstreamError {
  if (!(error instanceof UpstreamError)) return false;
  if (error.upstreamType === 'connection_refused') return true;
  if (error.status === 0 || error.upstreamType === 'timeout' || error.upstreamType === 'invalid_response' || error.upstreamType === 'response_too_large') return false;
  if (keyed && (error.status === 500 || error.status === 502 || error.status === 504)) return false;
  return true;
}

/** A job's input file is gone (its row expired or removed, or its bytes missing from the blob store): the job cannot be sent. */
class JobInputMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobInputMissingError';
  }
}

/**
 * The upstream request of a job: its stored request, with file inputs read back from storage
 * (whole: they become one multipart body). Undefined when the job was handled here: failed
 * (an input is gone for good: nothing was sent, the hold is released) or rescheduled (the blob
 * store cannot be reached now: the job waits for it, its money stays held).
 */
async function upstreamRequest(step: JobStep, job: Job): Promise<{ request: unknown } | undefined> {
  const { services, owner } = step;
  const { files, jobs, logger } = services;
  const input = async (id: unknown): Promise<InputFile | undefined> => {
    if (typeof id !== 'number') return undefined;
    // Any account (null): the job's own input, checked against its account when it was created.
    const file = await files.get(null, id);
    if (!file) throw new JobInputMissingError(`the input file ${id} of this job has expired or was removed before the job could be sent upstream; nothing was charged`);
    try {
      return { data: await files.read(file), mediaType: file.mediaType, filename: file.filename ?? `input-${id}` };
    } catch (error) {
      if (!(error instanceof BlobMissingError)) throw error;
      logger.error({ err: error, job_id: job.id, file_id: id }, 'job input file has lost its bytes in the blob store; failing the job');
      throw new JobInputMissingError(`the content of input file ${id} is missing from the gateway's file storage (ask the operator to check the storage); nothing was charged`);
    }
  };
  try {
    return { request: await mediaJobRules(job.kind).upstreamRequest(job.request, input) };
  } catch (error) {
    if (error instanceof JobInputMissingError) {
      await failJob(services, job, owner, { code: 'input_file_missing', message: error.message });
      return undefined;
    }
    if (error instanceof BlobStoreUnavailableError) {
      const retryInMs = backoffMs(job.polls);
      logger.warn({ err: error, job_id: job.id, retry_in_ms: retryInMs }, 'job input cannot be read: the blob store is unavailable; retrying later');
      await jobs.reschedule(job, owner, { nextRunAt: services.now() + retryInMs, polled: true });
      return undefined;
    }
    throw error;
  }
}
