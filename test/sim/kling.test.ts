// The simulated Kling (/kling): a JWT checked as Kling checks it (signature against a secret the
// test registers, nbf, exp), tasks that advance submitted → processing → succeed per query,
// looked up by task_id or external_task_id, a name used twice refused, an MP4 of the requested
// duration and frame, the code trigger, and the per-name counts the money tests rely on.
import test from 'ava';
import { readMp4Info } from '../../src/media-files/mp4.js';
import { registerKlingSecret } from '../../src/sim/vendors/kling/auth.js';
import { klingJwt } from '../../src/vendors/kling/jwt.js';
import { startTestSimulator } from './simulator.js';

const keys = { accessKey: `sim-test-${process.pid}`, secretKey: 'the-secret' };
registerKlingSecret(keys.accessKey, keys.secretKey);
const now = () => Math.floor(Date.now() / 1000);

async function call(url: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

test('JWT: a valid token passes; none, a wrong signature, an expired or not yet valid one get Kling\'s codes with HTTP 401', async (t) => {
  const simulator = await startTestSimulator(t);
  const url = `${simulator.url}/kling/v1/videos/text2video/unknown-task`;
  t.like(await call(url, klingJwt(keys, now())), { status: 404, body: { code: 1203 } }, 'authenticated: the task is just unknown');
  const none = await fetch(url);
  t.like({ status: none.status, body: await none.json() }, { status: 401, body: { code: 1001 } });
  t.like(await call(url, 'not-a-jwt'), { status: 401, body: { code: 1002 } });
  t.like(await call(url, klingJwt({ ...keys, secretKey: 'wrong' }, now())), { status: 401, body: { code: 1000 } });
  t.like(await call(url, klingJwt(keys, now() - 1800 - 10)), { status: 401, body: { code: 1004 } });
  t.like(await call(url, klingJwt(keys, now() + 60)), { status: 401, body: { code: 1003 } });
});

test('text to video: submitted, then processing, then succeed with an MP4 of the requested seconds and frame; found by either id; a name is used once', async (t) => {
  const simulator = await startTestSimulator(t);
  const token = klingJwt(keys, now());
  const name = `ext-${process.pid}-${Date.now()}`;
  const created = await call(`${simulator.url}/kling/v1/videos/text2video`, token, { model_name: 'kling-v2-1', prompt: 'a fox', duration: '10', aspect_ratio: '9:16', mode: 'pro', external_task_id: name });
  t.is(created.status, 200);
  t.like(created.body, { code: 0, message: 'SUCCEED', data: { task_status: 'submitted', task_info: { external_task_id: name } } });
  const id = created.body.data.task_id as string;
  t.regex(id, /^\d+$/);
  const again = await call(`${simulator.url}/kling/v1/videos/text2video`, token, { prompt: 'a fox', external_task_id: name });
  t.like(again, { status: 400, body: { code: 1201 } }, 'the name is held');
  const first = await call(`${simulator.url}/kling/v1/videos/text2video/${name}`, token);
  t.like(first.body.data, { task_id: id, task_status: 'processing' }, 'by external_task_id');
  t.like((await call(`${simulator.url}/kling/v1/videos/image2video/${id}`, token)).body, { code: 1203 }, 'not at the other endpoint');
  const done = await call(`${simulator.url}/kling/v1/videos/text2video/${id}`, token);
  t.is(done.body.data.task_status, 'succeed');
  const video = done.body.data.task_result.videos[0];
  t.is(video.duration, '10');
  const file = await fetch(video.url);
  t.is(file.headers.get('content-type'), 'video/mp4');
  const info = readMp4Info(new Uint8Array(await file.arrayBuffer()));
  t.like(info, { durationSeconds: 10, width: 1080, height: 1920 });
  const stats = ((await (await fetch(`${simulator.url}/kling/__sim/stats`)).json()) as any).data;
  t.is(stats.by_external_task_id[name], 1);
});

test('image to video, a failing task, the code trigger and a refused body', async (t) => {
  const simulator = await startTestSimulator(t);
  const token = klingJwt(keys, now());
  const image = await call(`${simulator.url}/kling/v1/videos/image2video`, token, { model_name: 'kling-v2-1', image: 'iVBORw0KGgo=', prompt: 'smile', duration: '5' });
  t.is(image.body.code, 0);
  await call(`${simulator.url}/kling/v1/videos/image2video/${image.body.data.task_id}`, token);
  const video = (await call(`${simulator.url}/kling/v1/videos/image2video/${image.body.data.task_id}`, token)).body.data.task_result.videos[0];
  t.like(readMp4Info(new Uint8Array(await (await fetch(video.url)).arrayBuffer())), { durationSeconds: 5, width: 1280, height: 720 });
  const failing = await call(`${simulator.url}/kling/v1/videos/text2video`, token, { prompt: 'doomed [[sim:job-fail]]' });
  await call(`${simulator.url}/kling/v1/videos/text2video/${failing.body.data.task_id}`, token);
  t.like((await call(`${simulator.url}/kling/v1/videos/text2video/${failing.body.data.task_id}`, token)).body.data, { task_status: 'failed', task_status_msg: 'The simulated task failed ([[sim:job-fail]]).' });
  t.like(await call(`${simulator.url}/kling/v1/videos/text2video`, token, { prompt: 'risky [[sim:kling-code=1301]]' }), { status: 200, body: { code: 1301 } }, 'an error in a 200 envelope, as Kling sends many');
  t.like(await call(`${simulator.url}/kling/v1/videos/text2video`, token, { prompt: 'x', duration: '7' }), { status: 400, body: { code: 1201 } });
  t.like(await call(`${simulator.url}/kling/v1/videos/image2video`, token, { image: 'data:image/png;base64,AAAA' }), { status: 400, body: { code: 1201 } });
  t.like(await call(`${simulator.url}/kling/v1/nothing`, token), { status: 404, body: { code: 1202 } });
});
