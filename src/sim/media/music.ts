// Suno-style music (wire-formats.md §7, the sunoapi.org / kie.ai shape): POST /api/v1/generate
// answers a taskId in a {code, msg, data} envelope; GET /api/v1/generate/record-info?taskId=…
// reports PENDING → TEXT_SUCCESS → FIRST_SUCCESS → SUCCESS (or GENERATE_AUDIO_FAILED) with
// two tracks — always two, instrumental too, as the vendor does — whose audioUrl is on this
// simulator (GET /sim-files/music/{taskId}/{index}.mp3, real MP3 of the track's duration).
// Like the vendor, errors are HTTP 200 with a non-200 `code` in the envelope.
import { randomBytes } from 'node:crypto';
import type { SimContext } from '../context.js';
import { sendJson } from '../context.js';
import { stripMagic } from '../faults.js';
import { isRecord } from '../guards.js';
import { applyFaults, seededRandom, sendBytes } from './common.js';
import { silentMp3 } from './mp3.js';
import { originOf, parseJobBehaviour, SimJobs, stripJobMagic, submitSimJob, type SimJob } from './sim-jobs.js';

interface MusicDetails {
  readonly request: Record<string, unknown>;
  readonly model: string;
  readonly title: string;
  readonly tags: string;
  readonly prompt: string;
  readonly durations: readonly number[];
}

const tasks = new SimJobs<MusicDetails>('music', '', randomBytes(4).toString('hex'));
const newerModels = ['V4_5', 'V4_5PLUS', 'V4_5ALL', 'V5', 'V5_5'];

function envelope(context: SimContext, code: number, msg: string, data: unknown = null): void {
  sendJson(context, 200, { code, msg, data });
}

/** The vendor's limits (§7): the answer is an error message, or undefined when the request is valid. */
function problemOf(body: Record<string, unknown>): string | undefined {
  const model = typeof body.model === 'string' ? body.model : 'V4_5';
  const newer = newerModels.includes(model);
  const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
  const prompt = text('prompt');
  if (body.customMode !== true) {
    if (!prompt) return 'prompt is required';
    if (prompt.length > 500) return 'prompt is too long (max 500 characters in non-custom mode)';
    return undefined;
  }
  const style = text('style');
  const title = text('title');
  if (!style) return 'style is required in custom mode';
  if (!title) return 'title is required in custom mode';
  if (body.instrumental !== true && !prompt) return 'prompt (lyrics) is required in custom mode unless instrumental';
  if (prompt && prompt.length > (newer ? 5000 : 3000)) return `prompt is too long (max ${newer ? 5000 : 3000} characters)`;
  if (style.length > (newer ? 1000 : 200)) return `style is too long (max ${newer ? 1000 : 200} characters)`;
  if (title.length > (newer ? 100 : 80)) return `title is too long (max ${newer ? 100 : 80} characters)`;
  return undefined;
}

/** POST /api/v1/generate */
export async function handleGenerateMusic(context: SimContext): Promise<void> {
  if (!isRecord(context.body)) return envelope(context, 400, 'the request body must be a JSON object');
  const body = context.body;
  const problem = problemOf(body);
  if (problem) return envelope(context, 400, problem);
  const magic = ['prompt', 'style', 'title'].map((name) => (typeof body[name] === 'string' ? body[name] : '')).join(' ');
  if (!(await applyFaults(context, magic))) return;
  const random = seededRandom('music', context.seed);
  const clean = (value: unknown) => (typeof value === 'string' ? stripJobMagic(stripMagic(value)) : '');
  const task = await submitSimJob(context, tasks, parseJobBehaviour(magic), {
    request: body,
    model: typeof body.model === 'string' ? body.model : 'V4_5',
    title: clean(body.title) || 'Simulated Song',
    tags: clean(body.style) || 'pop',
    prompt: clean(body.prompt),
    durations: [5 + Math.floor(random() * 4), 5 + Math.floor(random() * 4)],
  });
  if (task) envelope(context, 200, 'success', { taskId: task.id });
}

const statusByPhase = { queued: 'PENDING', running: 'TEXT_SUCCESS', completed: 'SUCCESS', failed: 'GENERATE_AUDIO_FAILED' } as const;

function record(context: SimContext, task: SimJob<MusicDetails>): Record<string, unknown> {
  const { phase, progress } = tasks.phase(task);
  let status: string = statusByPhase[phase];
  if (phase === 'running' && progress >= 50) status = 'FIRST_SUCCESS';
  if (phase === 'running' && task.behaviour.unknownStatus) status = 'MIXING_STEMS';
  const origin = originOf(context.request.headers.host);
  const ready = phase === 'completed' ? 2 : status === 'FIRST_SUCCESS' ? 1 : 0;
  const sunoData = task.details.durations.slice(0, ready).map((duration, index) => ({
    id: `${task.id}-${index}`,
    audioUrl: phase === 'completed' ? `${origin}/sim-files/music/${task.id}/${index}.mp3` : '',
    streamAudioUrl: `${origin}/sim-files/music/${task.id}/${index}.mp3`,
    imageUrl: `${origin}/sim-files/music/${task.id}/${index}.png`,
    prompt: task.details.request.instrumental === true ? '' : task.details.prompt,
    modelName: task.details.model,
    title: task.details.title,
    tags: task.details.tags,
    createTime: task.createdAt,
    duration,
  }));
  return {
    taskId: task.id,
    parentMusicId: '',
    param: JSON.stringify(task.details.request),
    response: { taskId: task.id, sunoData },
    status,
    type: 'GENERATE',
    errorCode: phase === 'failed' ? 500 : null,
    errorMessage: phase === 'failed' ? 'The simulated generation failed ([[sim:job-fail]]).' : null,
  };
}

/** GET /api/v1/generate/record-info?taskId=… */
export function handleMusicRecord(context: SimContext, taskId: string | null): void {
  const task = taskId ? tasks.poll(taskId) : undefined;
  if (!task) return envelope(context, 404, `task not found: ${taskId ?? '(no taskId)'}`);
  envelope(context, 200, 'success', record(context, task));
}

/** GET /sim-files/music/{taskId}/{index}.mp3 — only once the track is ready. */
export function handleMusicFile(context: SimContext, taskId: string, index: number): boolean {
  const task = tasks.get(taskId);
  const duration = task?.details.durations[index];
  if (!task || duration === undefined || tasks.phase(task).phase !== 'completed') return false;
  sendBytes(context, silentMp3(duration), 'audio/mpeg');
  return true;
}
