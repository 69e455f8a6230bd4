// The simulated FLUX API (prefix /bfl) on its own wire: BFL's FastAPI errors, the task chain,
// the sample's expiry, the sizes each model family draws.
import test from 'ava';
import { readImageSize } from '../../src/sim/media/png.js';
import { startSimulator } from '../../src/sim/server.js';

async function simulator(t: import('ava').ExecutionContext) {
  const sim = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => sim.close());
  const submit = (model: string, body: unknown, key = 'k') =>
    fetch(`${sim.url}/bfl/v1/${model}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { 'x-key': key } : {}) }, body: JSON.stringify(body) });
  const get = (url: string) => fetch(url, { headers: { 'x-key': 'k' } });
  return { sim, submit, get };
}

test('errors in BFL\'s shape: 403 without x-key, 404 unknown path, 422 naming the field', async (t) => {
  const { sim, submit } = await simulator(t);
  const noKey = await submit('flux-pro-1.1', { prompt: 'x' }, '');
  t.is(noKey.status, 403);
  t.deepEqual(await noKey.json(), { detail: 'Not authenticated' });
  const unknown = await fetch(`${sim.url}/bfl/v2/nothing`, { method: 'POST', headers: { 'x-key': 'k' } });
  t.is(unknown.status, 404);
  t.deepEqual(await unknown.json(), { detail: 'Not Found' });
  const width = await submit('flux-pro-1.1', { prompt: 'x', width: 1000, height: 768 });
  t.is(width.status, 422);
  t.deepEqual(((await width.json()) as any).detail[0].loc, ['body', 'width']);
  const ratio = await submit('flux-kontext-pro', { prompt: 'x', aspect_ratio: '4:1' });
  t.is(ratio.status, 422);
  const limited = await submit('flux-pro-1.1', { prompt: 'x [[sim:status=429]] [[sim:retry-after=3]]' });
  t.is(limited.status, 429);
  t.is(limited.headers.get('retry-after'), '3');
  t.is((await submit('flux-pro-1.1', { prompt: 'x [[sim:status=402]]' })).status, 402);
});

test('a task: Pending, then Ready with a signed sample of the asked size; an unknown task; an expired sample is storage\'s 403', async (t) => {
  const { sim, submit, get } = await simulator(t);
  const task = (await (await submit('flux-kontext-max', { prompt: 'a valley', aspect_ratio: '9:16', output_format: 'jpeg' })).json()) as any;
  t.is(task.polling_url, `${sim.url}/bfl/v1/get_result?id=${task.id}`);
  t.like(await (await get(task.polling_url)).json(), { id: task.id, status: 'Pending', result: null });
  const ready = (await (await get(task.polling_url)).json()) as any;
  t.is(ready.status, 'Ready');
  const sample = await fetch(ready.result.sample);
  t.is(sample.headers.get('content-type'), 'image/jpeg');
  t.like(readImageSize(Buffer.from(await sample.arrayBuffer())), { format: 'jpeg', width: 768, height: 1360 });
  t.is((await fetch(ready.result.sample.replace(/sig=[^&]+/, 'sig=forged'))).status, 404);
  t.like(await (await get(`${sim.url}/bfl/v1/get_result?id=nope`)).json(), { id: 'nope', status: 'Task not found' });

  const stale = (await (await submit('flux-pro-1.1', { prompt: 'x [[sim:sample-ttl=0]] [[sim:pending=0]]' })).json()) as any;
  const staleReady = (await (await get(stale.polling_url)).json()) as any;
  const expired = await fetch(staleReady.result.sample);
  t.is(expired.status, 403);
  t.regex(await expired.text(), /<Code>AuthenticationFailed<\/Code>/);
});

test('moderation and failure outcomes on trigger words', async (t) => {
  const { submit, get } = await simulator(t);
  for (const [word, status] of [['moderated', 'Request Moderated'], ['content-moderated', 'Content Moderated'], ['generation-error', 'Error']]) {
    const task = (await (await submit('flux-pro-1.1', { prompt: `x [[sim:${word}]] [[sim:pending=0]]` })).json()) as any;
    t.like(await (await get(task.polling_url)).json(), { status, result: null }, word);
  }
});
