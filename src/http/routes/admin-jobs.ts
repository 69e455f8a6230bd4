// /admin/v1/jobs: the jobs of every account (as `gateway jobs ls`), and cancelling one (as
// `gateway jobs cancel`: its hold released, nothing charged, audited with the actor).
import * as schemas from '../../admin/schemas.js';
import { limitedList } from '../../cli/list-output.js';
import { cancelJob } from '../../pipeline/job-end.js';
import { presentJob, presentJobSummary } from '../../jobs/present.js';
import { validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { actorOf } from './admin-actor.js';

export const listJobs: Handler = async (ctx, services) => {
  const query = validate(schemas.jobsQuery, ctx.query, 'query');
  const accountId = query.account === undefined ? undefined : (await services.accounts.find(query.account)).id;
  // One row beyond the limit, only to know whether there are more.
  const rows = await services.jobs.list({ accountId, status: query.status, kind: query.kind === undefined ? undefined : [query.kind], limit: query.limit + 1 });
  const list = limitedList(rows, query.limit);
  ctx.body = { ...list, data: list.data.map((job) => presentJobSummary(job, services.config.storage.tempTtlMs)) };
};

/** 404 for an unknown job; 409 job_already_ended when it had ended (nothing changed). */
export const cancelJobRoute: Handler = async (ctx, services) => {
  const job = await cancelJob(services, ctx.params.id!, actorOf(ctx));
  ctx.body = { ...presentJob(job, services.config.storage.tempTtlMs), cancelled: true };
};
