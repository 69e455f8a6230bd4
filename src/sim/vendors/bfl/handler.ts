// Black Forest Labs' FLUX API under the prefix `bfl`: submit, poll, fetch the signed sample.
//   POST /v1/{model}          `x-key` required; JSON {prompt, width, height | aspect_ratio,
//                             output_format, safety_tolerance, seed, input_image…} →
//                             {id, polling_url, cost, input_mp, output_mp}
//   GET  /v1/get_result?id=   Pending on the first poll (or [[sim:pending=N]]), then Ready with
//                             result.sample, or the outcome the prompt asked for
//   GET  /results/{id}/sample.{png|jpeg}?se=&sig=   the image, until the signed URL expires
//                             (10 minutes after Ready, or [[sim:sample-ttl=MS]]): then 403 in
//                             storage's XML, as the real delivery host answers
//   GET  /__sim/stats         the simulator's own counts (not a BFL endpoint): submits, Pending /
//                             Ready / failed polls, samples served and refused as expired
// Errors in BFL's FastAPI shape: {"detail": "…"}; 422 {"detail": [{loc, msg, type}]}.
import { createHmac, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseFaults } from '../../faults.js';
import { sha256 } from '../../media/common.js';
import { patternPng, readImageSize } from '../../media/png.js';
import type { VendorSimRequest } from '../routes.js';
import { answerBytes, answerJson, BodyTooLarge, readRequestBody } from './http.js';
import { addTask, statsOf, taskOf, type TaskOutcome } from './tasks.js';

const prefix = '/bfl';
/** How long a sample URL lasts by default, as BFL's do. */
const sampleTtlMs = 10 * 60 * 1000;
const signingKey = randomBytes(32);

class BflError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : 'validation error');
  }
}

function unprocessable(field: string, message: string, input: unknown): BflError {
  return new BflError(422, [{ type: 'value_error', loc: ['body', field], msg: message, input }]);
}

/** [[sim:name=value]] switches of this vendor (the common ones come from parseFaults). */
function switches(prompt: string): { outcome: TaskOutcome; pending: number; sampleTtlMs: number } {
  const values = new Map<string, number | undefined>();
  for (const match of prompt.matchAll(/\[\[sim:([a-z-]+)(?:=(\d+))?\]\]/g)) values.set(match[1]!, match[2] === undefined ? undefined : Number(match[2]));
  const outcome: TaskOutcome = values.has('moderated') ? 'Request Moderated' : values.has('content-moderated') ? 'Content Moderated' : values.has('generation-error') ? 'Error' : 'Ready';
  return { outcome, pending: Math.min(values.get('pending') ?? 1, 100), sampleTtlMs: values.get('sample-ttl') ?? sampleTtlMs };
}

export async function handleBfl(sim: VendorSimRequest): Promise<void> {
  const { request, response, path } = sim;
  try {
    if (request.method === 'GET' && path.startsWith('/results/')) return serveSample(sim);
    if (request.method === 'GET' && path === '/__sim/stats') return answerJson(response, 200, statsOf(sim.usage));
    if (!request.headers['x-key']) throw new BflError(403, 'Not authenticated');
    if (request.method === 'GET' && path === '/v1/get_result') return poll(sim);
    const model = /^\/v1\/(flux-[a-z0-9.-]+)$/.exec(path)?.[1];
    if (!model) throw new BflError(404, 'Not Found');
    if (request.method !== 'POST') throw new BflError(405, 'Method Not Allowed');
    await submit(sim, model);
  } catch (caught) {
    if (caught instanceof BodyTooLarge) return answerJson(response, 413, { detail: 'Request Entity Too Large' });
    const error = caught instanceof BflError ? caught : new BflError(500, `simulator failure: ${(caught as Error).message}`);
    answerJson(response, error.status, { detail: error.detail }, error.headers);
  }
}

async function submit(sim: VendorSimRequest, model: string): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse((await readRequestBody(sim.request)).toString('utf8'));
  } catch (error) {
    if (error instanceof BodyTooLarge) throw error;
    throw new BflError(422, [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {} }]);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw unprocessable('prompt', 'Input should be a valid dictionary', body);
  const fields = body as Record<string, unknown>;
  if (typeof fields.prompt !== 'string' || fields.prompt === '') throw unprocessable('prompt', 'Field required', fields.prompt);
  const prompt = fields.prompt;
  const references = readReferences(fields);
  const format = fields.output_format ?? 'png';
  if (format !== 'png' && format !== 'jpeg') throw unprocessable('output_format', "Input should be 'jpeg' or 'png'", format);
  if (fields.safety_tolerance !== undefined && !(Number.isInteger(fields.safety_tolerance) && (fields.safety_tolerance as number) >= 0 && (fields.safety_tolerance as number) <= 6)) {
    throw unprocessable('safety_tolerance', 'Input should be less than or equal to 6', fields.safety_tolerance);
  }
  const { width, height } = sizeOf(model, fields, references[0]);
  const faults = parseFaults(prompt);
  if (faults.ttfbMs > 0) await sleep(faults.ttfbMs);
  if (faults.drop) {
    sim.response.socket?.destroy();
    return;
  }
  if (faults.status !== undefined) throw faultOf(faults.status, faults.retryAfterSeconds);
  const { outcome, pending, sampleTtlMs: ttl } = switches(prompt);
  const seed = Number.isInteger(fields.seed) ? (fields.seed as number) : sha256(prompt).readUInt32LE(0);
  const task = addTask(sim.usage, { model, prompt, width, height, format, seed, references: sha256(...references.map((image) => image.bytes)).toString('hex'), outcome, pendingPolls: pending, sampleTtlMs: ttl });
  const outputMp = Math.round(((width * height) / 1_000_000) * 100) / 100;
  answerJson(sim.response, 200, {
    id: task.id,
    polling_url: `${sim.origin}${prefix}/v1/get_result?id=${task.id}`,
    cost: model.includes('max') ? 8 : model.includes('ultra') ? 6 : 4,
    input_mp: references.length > 0 ? outputMp : 0,
    output_mp: outputMp,
  });
}

function faultOf(status: number, retryAfterSeconds: number): BflError {
  if (status === 429) return new BflError(429, 'Too many active tasks: wait for one to finish', { 'retry-after': String(retryAfterSeconds) });
  if (status === 402) return new BflError(402, 'Insufficient credits. Add credits at https://dashboard.bfl.ai to continue.');
  if (status === 403) return new BflError(403, 'Not authenticated');
  return new BflError(status, status >= 500 ? 'Simulated internal server error' : `Simulated error ${status}`);
}

interface Reference {
  readonly bytes: Buffer;
  readonly width: number;
  readonly height: number;
}

function readReferences(fields: Record<string, unknown>): Reference[] {
  const references: Reference[] = [];
  for (const name of ['input_image', 'input_image_2', 'input_image_3', 'input_image_4']) {
    const value = fields[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw unprocessable(name, 'Input should be a valid string', value);
    const bytes = Buffer.from(value.replace(/^data:[^,]*,/, ''), 'base64');
    const size = readImageSize(bytes);
    if (!size) throw new BflError(400, `${name}: the image could not be decoded (PNG or JPEG expected)`);
    references.push({ bytes, width: size.width, height: size.height });
  }
  return references;
}

/** The drawn size: width/height for the sized models, the aspect ratio at 1 MP (Kontext) or 4 MP (Ultra) for the others. */
function sizeOf(model: string, fields: Record<string, unknown>, reference: Reference | undefined): { width: number; height: number } {
  if (model.includes('kontext') || model.includes('ultra')) {
    const side = model.includes('ultra') ? 2048 : 1024;
    let ratio = { width: 1, height: 1 };
    if (fields.aspect_ratio !== undefined && fields.aspect_ratio !== null) {
      const match = typeof fields.aspect_ratio === 'string' ? /^(\d{1,3}):(\d{1,3})$/.exec(fields.aspect_ratio) : null;
      const value = match ? Number(match[1]) / Number(match[2]) : NaN;
      if (!match || !(value >= 9 / 21 - 1e-9 && value <= 21 / 9 + 1e-9)) throw unprocessable('aspect_ratio', 'Aspect ratio must be between 21:9 and 9:21', fields.aspect_ratio);
      ratio = { width: Number(match[1]), height: Number(match[2]) };
    } else if (reference) {
      ratio = { width: reference.width, height: reference.height };
    } else if (model.includes('ultra')) {
      ratio = { width: 16, height: 9 };
    }
    const scale = Math.sqrt((side * side) / (ratio.width * ratio.height));
    const multipleOf16 = (value: number) => Math.max(16, Math.floor(value / 16) * 16);
    return { width: multipleOf16(ratio.width * scale), height: multipleOf16(ratio.height * scale) };
  }
  const flux2 = model.startsWith('flux-2');
  const [min, max, step] = flux2 ? [64, 4096, 16] : [256, 1440, 32];
  const dimension = (name: 'width' | 'height', fallback: number) => {
    const value = fields[name] ?? fallback;
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max || (value as number) % step !== 0) {
      throw unprocessable(name, `Input should be a multiple of ${step} from ${min} to ${max}`, value);
    }
    return value as number;
  };
  return { width: dimension('width', 1024), height: dimension('height', 768) };
}

function signature(id: string, expires: number): string {
  return createHmac('sha256', signingKey).update(`${id}\n${expires}`).digest('base64url');
}

function poll({ response, query, origin, usage }: VendorSimRequest): void {
  const id = query.get('id') ?? '';
  const task = taskOf(usage, id);
  const stats = statsOf(usage);
  if (!task) return answerJson(response, 200, { id, status: 'Task not found', result: null, progress: null, details: null });
  if (task.pendingPolls > 0) {
    task.pendingPolls--;
    stats.pendingPolls++;
    return answerJson(response, 200, { id, status: 'Pending', result: null, progress: 0.5, details: null });
  }
  if (task.outcome !== 'Ready') {
    stats.failedPolls++;
    const details = task.outcome === 'Error' ? { error: 'Simulated generation failure' } : { 'Moderation Reasons': ['Simulated moderation'] };
    return answerJson(response, 200, { id, status: task.outcome, result: null, progress: null, details });
  }
  stats.readyPolls++;
  task.readyAt ??= Date.now();
  const expires = task.readyAt + task.sampleTtlMs;
  const sample = `${origin}${prefix}/results/${id}/sample.${task.format === 'jpeg' ? 'jpeg' : 'png'}?se=${expires}&sig=${signature(id, expires)}`;
  const readySeconds = task.readyAt / 1000;
  answerJson(response, 200, {
    id,
    status: 'Ready',
    result: { sample, prompt: task.prompt, seed: task.seed, start_time: readySeconds - 2, end_time: readySeconds, duration: 2 },
    progress: null,
    details: null,
  });
}

function storageError(code: string, message: string): Buffer {
  return Buffer.from(`<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`, 'utf8');
}

async function serveSample({ response, path, query, usage }: VendorSimRequest): Promise<void> {
  const stats = statsOf(usage);
  const match = /^\/results\/([0-9a-f-]+)\/sample\.(png|jpeg)$/.exec(path);
  const task = match ? taskOf(usage, match[1]!) : undefined;
  const expires = Number(query.get('se'));
  if (!match || !task || query.get('sig') !== signature(match[1]!, expires)) {
    return answerBytes(response, 404, storageError('BlobNotFound', 'The specified blob does not exist.'), 'application/xml');
  }
  if (Date.now() >= expires) {
    stats.expiredSamples++;
    return answerBytes(response, 403, storageError('AuthenticationFailed', 'Signature not valid in the specified time frame.'), 'application/xml');
  }
  stats.samples++;
  const png = patternPng(task.width, task.height, `${task.model}\n${task.prompt}\n${task.seed}\n${task.references}`);
  if (task.format === 'png') return answerBytes(response, 200, png, 'image/png');
  // sharp (libvips) only for the jpeg samples.
  const { default: sharp } = await import('sharp');
  answerBytes(response, 200, await sharp(png).jpeg({ quality: 90 }).toBuffer(), 'image/jpeg');
}
