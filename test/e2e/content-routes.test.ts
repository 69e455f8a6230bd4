// Two claims of docs/http-api.md about the job routes that had no test: polling a job and
// downloading content are not rate limited (a client pacing itself by openai-poll-after-ms would
// otherwise spend its allowance polling), and the Range rules for several ranges and for
// If-Range with a date (the file's own Last-Modified, or a later one, keeps the range).
import { MemoryRateLimiter } from '../../src/auth/rate-limiter.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';
import { fastJobsConfig } from '../helpers/job-config.js';
import { api, startJobGateway } from '../helpers/jobs.js';

testOnBackends('polling a job and downloading its content are not rate limited; the key\'s other routes are', async (t, database) => {
  // The limiter's clock stands still: an allowance spent stays spent for the whole test.
  const gateway = await startGateway(t, database, { raw: fastJobsConfig(), jobRunner: true, rateLimiter: new MemoryRateLimiter(() => 5_000_000) });
  const { key } = await gateway.newClient({ balanceUnits: 100_000_000n, rpm: 2 });
  const video = await api(gateway, key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'polled [[sim:job-seconds=0.2]]', wait: true });
  const song = await api(gateway, key, 'POST', '/v1/audio/music', { model: 'sim/song', prompt: 'polled [[sim:job-seconds=0.2]]', wait: true });
  t.is(video.body.status, 'completed', JSON.stringify(video.body));
  t.is(song.body.status, 'completed', JSON.stringify(song.body));
  const spent = await api(gateway, key, 'GET', '/v1/history');
  t.is(spent.status, 429, 'the two creates spent the allowance of 2');
  const generation = (await gateway.services.db('generations').where({ job_id: video.body.id }).first()) as any;
  const fileId = JSON.parse((await gateway.services.db('jobs').where({ id: video.body.id }).first()).result).fileIds[0];
  const unlimited = [
    `/v1/videos/${video.body.id}`,
    `/v1/videos/${video.body.id}/content`,
    `/v1/audio/music/${song.body.id}`,
    `/v1/audio/music/${song.body.id}/content?index=1`,
    `/v1/files/${fileId}/content`,
    `/v1/generations/video/${generation.number}/content`,
  ];
  for (const path of unlimited) {
    for (let i = 0; i < 5; i++) {
      const answer = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      t.is(answer.status, 200, `${path} (${i + 1})`);
      t.is(answer.headers.get('x-ratelimit-limit-requests'), null, `${path}: no rate-limit headers`);
      await answer.arrayBuffer();
    }
  }
  // The limited routes are still refused: the polls neither spent nor refilled anything.
  for (const path of ['/v1/history', '/v1/videos', `/v1/files/${fileId}`]) t.is((await api(gateway, key, 'GET', path)).status, 429, path);
});

testOnBackends('content Range: several ranges get the whole file; If-Range with Last-Modified or a later date keeps the range, an earlier one does not', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const video = await api(gateway, key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'ranges [[sim:job-seconds=0.2]]', wait: true });
  const path = `${gateway.url}/v1/videos/${video.body.id}/content`;
  const auth = { authorization: `Bearer ${key}` };
  const whole = await fetch(path, { headers: auth });
  const bytes = Buffer.from(await whole.arrayBuffer());
  const lastModified = whole.headers.get('last-modified')!;
  t.regex(lastModified, /GMT$/);

  const several = await fetch(path, { headers: { ...auth, range: 'bytes=0-9,20-29' } });
  t.is(several.status, 200, 'several ranges: the whole file, not multipart/byteranges');
  t.is(several.headers.get('content-range'), null);
  t.is(several.headers.get('content-type'), 'video/mp4');
  t.deepEqual(Buffer.from(await several.arrayBuffer()), bytes);

  const withDate = async (date: string) => fetch(path, { headers: { ...auth, range: 'bytes=0-9', 'if-range': date } });
  const sameDate = await withDate(lastModified);
  t.is(sameDate.status, 206, 'If-Range with the Last-Modified date itself');
  t.is(sameDate.headers.get('content-range'), `bytes 0-9/${bytes.length}`);
  t.deepEqual(Buffer.from(await sameDate.arrayBuffer()), bytes.subarray(0, 10));
  const later = new Date(Date.parse(lastModified) + 60_000).toUTCString(); // a current date, as a client that just looked would send
  const laterAnswer = await withDate(later);
  t.is(laterAnswer.status, 206, 'If-Range with a date after Last-Modified');
  await laterAnswer.arrayBuffer();
  const earlier = await withDate(new Date(Date.parse(lastModified) - 1000).toUTCString());
  t.is(earlier.status, 200, 'If-Range with a date one second before Last-Modified: the file changed since, whole file');
  t.is(Number(earlier.headers.get('content-length')), bytes.length);
  await earlier.arrayBuffer();
});
