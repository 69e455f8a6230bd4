// POST /v1/responses with `background: true`, and the two routes of a background response:
// GET /v1/responses/{id} and POST /v1/responses/{id}/cancel (src/pipeline/background-responses.ts).
// Any other POST /v1/responses is a chat (chat.ts).
import { responsesDialect } from '../../dialects/responses/index.js';
import { backgroundResponseObject, cancelBackgroundResponse, createBackgroundResponse } from '../../pipeline/background-responses.js';
import type { Handler } from '../state.js';
import { chatHandler } from './chat.js';
import { ownJob } from './job-responses.js';

const answerChat = chatHandler(responsesDialect);

export const createResponse: Handler = async (ctx, services) => {
  const body = ctx.request.body as unknown;
  if (!isBackground(body)) return answerChat(ctx, services);
  const { job, object } = await createBackgroundResponse(services, { body, apiKey: ctx.state.apiKey!, scope: ctx.state.scope!, requestId: ctx.state.requestId });
  ctx.state.model = job.model;
  ctx.body = object;
};

export const retrieveResponse: Handler = async (ctx, services) => {
  const job = await ownJob(ctx, services, ['response'], 'response');
  ctx.state.model = job.model;
  // Pollers pace themselves by this header, as for videos.
  if (job.status === 'queued' || job.status === 'in_progress') ctx.set('openai-poll-after-ms', '1000');
  ctx.body = backgroundResponseObject(job);
};

export const cancelResponse: Handler = async (ctx, services) => {
  const job = await ownJob(ctx, services, ['response'], 'response');
  ctx.state.model = job.model;
  ctx.body = await cancelBackgroundResponse(services, job);
};

function isBackground(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && (body as Record<string, unknown>).background === true;
}
