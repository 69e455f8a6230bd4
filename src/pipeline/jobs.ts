// Creating an async job and waiting for it: what videos.ts, video-upscale.ts and music.ts
// share. The hold is placed with the job (job-store.ts), the runner — in this process or
// another — takes it through the job steps (job-step.ts); `wait` watches the job's row, so it
// works whichever process finishes the job.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiKey } from '../auth/api-keys.js';
import { assertScope } from '../auth/assert-scope.js';
import { assertKeyUsable, assertModelAllowed } from '../auth/key-policy.js';
import type { Scope } from '../auth/scopes.js';
import { holdForJob, withCurrentKey, type ChargeServices } from '../billing/charge-envelope.js';
import type { CatalogModel } from '../catalog/catalog.js';
import type { ModelType } from '../config/schema.js';
import type { Job } from '../jobs/job.js';
import { terminalStatuses } from '../jobs/job.js';
import type { NewJob } from '../jobs/job-store.js';
import { checkWebhookUrl } from '../jobs/address-guard.js';
import type { Catalog } from '../catalog/catalog.js';
import type { Config } from '../config/load.js';
import type { JobStore } from '../jobs/job-store.js';
import type { Files } from '../storage/files.js';
import { invalid } from '../validation/zod-details.js';

/** What creating and waiting for a job uses: the charge envelope's services, the catalog, the job store and the files its inputs are kept as. */
export interface JobServices extends ChargeServices {
  readonly catalog: Catalog;
  readonly config: Config;
  readonly jobs: JobStore;
  readonly files: Files;
}

/** How often a waiting request looks at its job. */
const waitPollMs = 200;

export interface ResolvedJobModel {
  readonly model: CatalogModel;
  /** The name was another catalog's (a fallback alias) or the model is deprecated: say so. */
  readonly deprecated: boolean;
}

/** The named model of `type`, or the configured default, or the first enabled one of the type. */
export function resolveJobModel(services: JobServices, name: string | undefined, type: ModelType, configuredDefault: string | undefined, accept: (model: CatalogModel) => boolean = () => true): ResolvedJobModel {
  const requested = name ?? configuredDefault;
  if (requested === undefined) {
    const fallback = services.catalog.enabledModels.find((model) => model.type === type && accept(model));
    if (!fallback) throw invalid(['body', 'model'], `no ${type} model is available on this gateway`);
    return { model: fallback, deprecated: false };
  }
  const model = services.catalog.resolve(requested);
  if (model.type !== type || !accept(model)) throw invalid(['body', 'model'], `"${requested}" is a ${model.type} model that cannot do this`, requested);
  const viaFallbackAlias = requested !== model.id && !model.config.aliases.includes(requested);
  return { model, deprecated: viaFallbackAlias || model.config.deprecated === true };
}

/** Refuses (422) a webhook URL that is malformed or resolves to an address we do not call. */
export async function validateWebhookUrl(services: JobServices, url: string | undefined): Promise<void> {
  if (url === undefined) return;
  const problem = await checkWebhookUrl(url, services.config.webhooks);
  if (problem) throw invalid(['body', 'webhook_url'], problem, url);
}

/**
 * `apiKey`: who asks — the job's model must be in its allowlist, and its hold counts against its
 * budget. The hold is placed with the job's row through the charge envelope, the key checked as
 * it is now; a key changed since the caller read it is read again and the job created again.
 */
export async function createJob(services: JobServices, input: Omit<NewJob, 'accountId' | 'keyId'> & { apiKey: ApiKey; scope: Scope }): Promise<{ job: Job; created: boolean }> {
  const { apiKey, scope, ...job } = input;
  assertModelAllowed(apiKey, job.model);
  const request = {
    key: apiKey,
    model: job.model,
    requestId: job.requestId,
    description: job.description,
    recheck: (fresh: ApiKey) => {
      assertKeyUsable(fresh, services.now(), undefined);
      assertScope(fresh, scope);
      assertModelAllowed(fresh, job.model);
    },
  };
  // Outlives the job's deadline: the runner fails the job (and releases) first.
  const holdTtlMs = services.config.jobs.deadlineMs + 4 * services.config.jobs.leaseMs;
  const outcome = await withCurrentKey(services, request, async (key) => {
    if (job.holdUnits === 0n) {
      // A free job holds nothing: the key is checked as it is now on its own, as a free chat's is.
      const refusal = await services.apiKeys.refusal(key.id, key.revision);
      if (refusal) throw refusal;
    }
    return services.jobs.create({ ...job, accountId: key.accountId, keyId: key.id }, (trx) =>
      job.holdUnits > 0n ? holdForJob(services.settles, trx, { ...request, key }, job.holdUnits, holdTtlMs, services.now()) : Promise.resolve(undefined),
    );
  });
  if (outcome.created) services.logger.info({ job_id: outcome.job.id, kind: input.kind, model: input.model, request_id: input.requestId }, 'job created');
  return outcome;
}

/** The job once it has ended, or as it is after `timeoutMs` (or when the client went away). */
export async function waitForJob(services: JobServices, job: Job, timeoutMs: number, signal: AbortSignal): Promise<Job> {
  const until = Date.now() + timeoutMs;
  let current = job;
  while (!terminalStatuses.includes(current.status) && Date.now() < until && !signal.aborted) {
    await sleep(Math.min(waitPollMs, Math.max(0, until - Date.now())));
    current = (await services.jobs.get(job.accountId, job.id)) ?? current;
  }
  return current;
}
