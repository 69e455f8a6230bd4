// The simulated Kling video API under the prefix /kling (a provider of kind `kling` reaches it
// with base_url: <simulator>/kling):
//   POST /v1/videos/text2video, /v1/videos/image2video     create a task → {task_id, task_status}
//   GET  /v1/videos/{text2video|image2video}/{id}          by task_id or external_task_id
//   GET  /files/{task_id}.mp4                              the video: an MP4 of the requested
//                                                          duration, 720p (std) or 1080p (pro)
//                                                          in the requested aspect ratio
//   GET  /__sim/stats                                      tasks created (per external_task_id)
// Every request but the file and stats needs a valid JWT (auth.ts). Magic strings in the prompt:
//   [[sim:kling-code=N]]   the create is refused with Kling code N in an HTTP 200 envelope, as
//                          Kling answers many errors (1301 content policy, 1303 concurrency…)
//   [[sim:kling-drop]]     the task is made, then the connection is cut before the answer: the
//                          client never learns the task_id (a lost answer)
//   [[sim:kling-late-first]] the first create of an external_task_id is held, unanswered and
//                          making nothing, until the client gives up (cap 60 s); it "arrives"
//                          when the next create of that name does: its task is made then, and
//                          the second create is refused the name (1201) — a late first create
//   [[sim:kling-name-query-refused]] queries of the task by its external_task_id are refused
//                          (1103, HTTP 403): a look-up by name that cannot succeed
//   [[sim:job-fail]]       the task ends `failed` with a task_status_msg
import { once } from 'node:events';
import { readRawBody } from '../prefixed-wire.js';
import type { VendorSimRequest } from '../routes.js';
import { mp4Video } from '../../media/mp4.js';
import { checkKlingToken } from './auth.js';
import { KlingSimError, sendEnvelope } from './envelope.js';
import { type KlingEndpoint, type KlingTask, KlingTasks } from './tasks.js';

const tasks = new KlingTasks();
/** external_task_id → the fields of a first create held by [[sim:kling-late-first]]. */
const lateFirst = new Map<string, Parameters<KlingTasks['create']>[0]>();
let requestCount = 0;

/** The stats of this process's simulated Kling (in-process tests; GET /kling/__sim/stats for others). */
export function klingSimStats(): ReturnType<KlingTasks['stats']> {
  return tasks.stats();
}

const maxBodyBytes = 16 * 1024 * 1024;

async function readJson(request: VendorSimRequest['request']): Promise<Record<string, unknown>> {
  const raw = await readRawBody(request, maxBodyBytes, (max) => new KlingSimError(1200, `the request body is larger than ${max} bytes`));
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new KlingSimError(1200, 'the request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new KlingSimError(1200, 'the request body must be a JSON object');
  return body as Record<string, unknown>;
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw new KlingSimError(1201, `${field} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function optionalText(value: unknown, field: string, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > max) throw new KlingSimError(1201, `${field} must be a string of at most ${max} characters`);
  return value;
}

/** The frame a task's video has: 720p (std) or 1080p (pro), in its aspect ratio. */
export function klingFrame(task: Pick<KlingTask, 'mode' | 'aspectRatio'>): { width: number; height: number } {
  const short = task.mode === 'pro' ? 1080 : 720;
  const long = task.mode === 'pro' ? 1920 : 1280;
  if (task.aspectRatio === '1:1') return { width: short, height: short };
  return task.aspectRatio === '16:9' ? { width: long, height: short } : { width: short, height: long };
}

async function createTask(context: VendorSimRequest, endpoint: KlingEndpoint, requestId: string): Promise<void> {
  const body = await readJson(context.request);
  const prompt = optionalText(body.prompt, 'prompt', 2500);
  if (endpoint === 'text2video' && !prompt) throw new KlingSimError(1201, 'prompt is required');
  const image = optionalText(body.image, 'image', maxBodyBytes);
  if (endpoint === 'image2video' && !image) throw new KlingSimError(1201, 'image is required');
  if (image?.startsWith('data:')) throw new KlingSimError(1201, 'image must be a URL or plain base64, without a data: prefix');
  const externalTaskId = optionalText(body.external_task_id, 'external_task_id', 256);
  const text = prompt ?? '';
  const code = /\[\[sim:kling-code=(\d{4})\]\]/.exec(text);
  if (code) return sendEnvelope(context.response, requestId, 200, Number(code[1]), `simulated Kling code ${code[1]}`);
  const fields = {
    endpoint,
    externalTaskId,
    modelName: typeof body.model_name === 'string' ? body.model_name : 'kling-v1',
    mode: oneOf(body.mode, 'mode', ['std', 'pro'], 'std'),
    seconds: Number(oneOf(body.duration, 'duration', ['5', '10'], '5')),
    aspectRatio: oneOf(body.aspect_ratio, 'aspect_ratio', ['16:9', '9:16', '1:1'], '16:9'),
    fail: text.includes('[[sim:job-fail]]'),
    nameQueryRefused: text.includes('[[sim:kling-name-query-refused]]'),
  } as const;
  if (externalTaskId !== undefined && text.includes('[[sim:kling-late-first]]')) {
    const held = lateFirst.get(externalTaskId);
    if (held === undefined) {
      lateFirst.set(externalTaskId, fields);
      await Promise.race([once(context.response, 'close'), new Promise((resolve) => setTimeout(resolve, 60_000).unref())]);
      context.response.socket?.destroy();
      return;
    }
    // The held first create arrives now, just ahead of this one.
    lateFirst.delete(externalTaskId);
    tasks.create(held);
  }
  const task = tasks.create(fields);
  if (!task) throw new KlingSimError(1201, `external_task_id ${externalTaskId} is already used by another task`);
  if (text.includes('[[sim:kling-drop]]')) {
    context.response.socket?.destroy();
    return;
  }
  sendEnvelope(context.response, requestId, 200, 0, 'SUCCEED', { task_id: task.id, task_status: 'submitted', task_info: externalTaskId === undefined ? {} : { external_task_id: externalTaskId }, created_at: task.createdAt, updated_at: task.createdAt });
}

function taskData(context: VendorSimRequest, task: KlingTask): Record<string, unknown> {
  const status = tasks.status(task);
  const data: Record<string, unknown> = {
    task_id: task.id,
    task_status: status,
    task_status_msg: status === 'failed' ? 'The simulated task failed ([[sim:job-fail]]).' : '',
    task_info: task.externalTaskId === undefined ? {} : { external_task_id: task.externalTaskId },
    created_at: task.createdAt,
    updated_at: task.createdAt + task.queries,
    task_result: {},
  };
  if (status === 'succeed') {
    data.final_unit_deduction = task.seconds === 10 ? '4' : '2';
    data.task_result = { videos: [{ id: `video-${task.id}`, url: `${context.origin}/kling/files/${task.id}.mp4`, duration: String(task.seconds) }] };
  }
  return data;
}

async function route(context: VendorSimRequest, requestId: string): Promise<void> {
  const { request, response, path } = context;
  if (request.method === 'GET' && path === '/__sim/stats') return sendEnvelope(response, requestId, 200, 0, 'SUCCEED', tasks.stats());
  const file = /^\/files\/(\d+)\.mp4$/.exec(path);
  if (request.method === 'GET' && file) {
    const task = tasks.get(file[1]!);
    if (!task || tasks.status(task) !== 'succeed') throw new KlingSimError(1203, 'no such video');
    const bytes = mp4Video({ ...klingFrame(task), seconds: task.seconds, seed: task.id });
    response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(bytes.length) });
    response.end(bytes);
    return;
  }
  checkKlingToken(request.headers.authorization);
  const create = /^\/v1\/videos\/(text2video|image2video)$/.exec(path);
  if (create && request.method === 'POST') return createTask(context, create[1] as KlingEndpoint, requestId);
  const query = /^\/v1\/videos\/(text2video|image2video)\/([^/]+)$/.exec(path);
  if (query && request.method === 'GET') {
    const task = tasks.query(query[1] as KlingEndpoint, decodeURIComponent(query[2]!));
    if (!task) throw new KlingSimError(1203, `task ${query[2]} not found`);
    return sendEnvelope(response, requestId, 200, 0, 'SUCCEED', taskData(context, task));
  }
  throw new KlingSimError(1202, `no method ${request.method} ${path}`);
}

export async function handleKling(context: VendorSimRequest): Promise<void> {
  const requestId = `kling-sim-${(++requestCount).toString(36).padStart(6, '0')}`;
  try {
    await route(context, requestId);
  } catch (error) {
    const refusal = error instanceof KlingSimError ? error : new KlingSimError(5000, `simulator failure: ${(error as Error)?.message ?? String(error)}`);
    sendEnvelope(context.response, requestId, refusal.httpStatus, refusal.code, refusal.message);
  }
}
