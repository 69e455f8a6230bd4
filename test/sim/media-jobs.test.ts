// The simulator's job submits as a vendor with an idempotency key would answer them, the
// submit delay that leaves a job behind a client that went away, and the /__sim/stats counts
// the exactly-once tests rely on. Serial: the counts are per process, shared by both tests.
import test from 'ava';
import { startTestSimulator } from './simulator.js';
import { eventually } from '../helpers/eventually.js';

async function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal });
  return { status: response.status, body: await response.json() };
}

async function stats(url: string, query = ''): Promise<any> {
  return (await fetch(`${url}/__sim/stats${query}`)).json();
}

test.serial('a repeated Idempotency-Key answers the job it created, on every job endpoint; a reused key with another request is a 409', async (t) => {
  const simulator = await startTestSimulator(t);
  const key = `key-${process.pid}-${Date.now()}`;
  const before = (await stats(simulator.url)).jobs;
  const first = await post(`${simulator.url}/v1/videos`, { prompt: 'same [[sim:job-seconds=0.2]]', seconds: 4 }, { 'idempotency-key': key });
  const again = await post(`${simulator.url}/v1/videos`, { prompt: 'same [[sim:job-seconds=0.2]]', seconds: 4 }, { 'Idempotency-Key': key });
  t.is(first.status, 200);
  t.is(again.body.id, first.body.id, 'the same job');
  const other = await post(`${simulator.url}/v1/videos`, { prompt: 'different', seconds: 4 }, { 'idempotency-key': key });
  t.is(other.status, 409);
  t.is(other.body.error.code, 'idempotency_key_reused');
  const music = await post(`${simulator.url}/api/v1/generate`, { prompt: 'tune', customMode: false, model: 'V4_5' }, { 'idempotency-key': key });
  const musicAgain = await post(`${simulator.url}/api/v1/generate`, { prompt: 'tune', customMode: false, model: 'V4_5' }, { 'idempotency-key': key });
  t.is(musicAgain.body.data.taskId, music.body.data.taskId, 'keys are per endpoint, and honoured on music too');
  const unkeyed = await post(`${simulator.url}/v1/videos`, { prompt: 'same [[sim:job-seconds=0.2]]', seconds: 4 });
  t.not(unkeyed.body.id, first.body.id, 'without a key every submit is a new job');

  const after = (await stats(simulator.url)).jobs;
  t.is(after.videos.created - before.videos.created, 2);
  t.is(after.videos.replayed - before.videos.replayed, 1);
  t.is(after.music.created - before.music.created, 1);
  t.is(after.music.replayed - before.music.replayed, 1);
  const one = await stats(simulator.url, `?job=${first.body.id}`);
  t.like(one, { id: first.body.id, endpoint: 'videos', idempotency_key: key, submits: 2, polls: 0 });
  await fetch(`${simulator.url}/v1/videos/${first.body.id}`);
  t.is((await stats(simulator.url, `?job=${first.body.id}`)).polls, 1, 'a status GET is counted as a poll');
  t.is((await fetch(`${simulator.url}/__sim/stats?job=nope`)).status, 404);
});

test.serial('[[sim:submit-delay]]: the job exists as soon as the submit arrives, even when the client leaves before the answer', async (t) => {
  const simulator = await startTestSimulator(t);
  const key = `gone-${process.pid}-${Date.now()}`;
  const before = (await stats(simulator.url)).jobs.videos.created;
  const controller = new AbortController();
  const abandoned = post(`${simulator.url}/v1/videos`, { prompt: 'slow [[sim:submit-delay=30000]]', seconds: 4 }, { 'idempotency-key': key }, controller.signal);
  // Wait for the submit to have arrived (the count moves), then leave without the answer.
  await eventually(async () => (await stats(simulator.url)).jobs.videos.created !== before, { what: 'the submit arrived', intervalMs: 10 });
  controller.abort();
  await t.throwsAsync(abandoned, { any: true, name: 'AbortError' });
  // Sent again with the same key: answered at once with that job, not a second one.
  const resent = await post(`${simulator.url}/v1/videos`, { prompt: 'slow [[sim:submit-delay=30000]]', seconds: 4 }, { 'idempotency-key': key });
  t.is(resent.status, 200);
  t.is((await stats(simulator.url)).jobs.videos.created - before, 1);
  t.like(await stats(simulator.url, `?job=${resent.body.id}`), { submits: 2, idempotency_key: key });
});
