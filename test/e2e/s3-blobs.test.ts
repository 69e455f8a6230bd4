// Issue 16: with storage.blobs.kind s3, every file, generation and job input/output path works
// against an S3-compatible server (s3rver on loopback), with Range and gc, on both databases;
// and the store's failures are clear errors, never a 500: a blob gone is a 404
// file_content_missing, a store down a 503 storage_unavailable with nothing charged (an image
// whose result cannot be stored releases its hold), /readyz names the store, a job whose result
// cannot be stored waits for the store and completes once, a job whose input is gone fails and
// is released.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ExecutionContext } from 'ava';
import { mp4Video } from '../../src/sim/media/mp4.js';
import { patternPng } from '../../src/sim/media/png.js';
import { BlobStoreUnavailableError } from '../../src/storage/blob-store.js';
import { assertLedgerInvariants, type TestDatabase, testOnBackends } from '../helpers/backends.js';
import { type TestClock, testClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { capturedLogger, startGateway, type TestGateway } from '../helpers/gateway.js';
import { api, assertJobMoneySettled, charges, fastJobsConfig, pollJob } from '../helpers/jobs.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';

interface S3Setup {
  readonly gateway: TestGateway;
  readonly s3: TestS3Server;
  readonly clock: TestClock;
  readonly client: { accountId: string; key: string };
  /** Object keys in the bucket, sorted. */
  objects(): Promise<string[]>;
  deleteObject(key: string): Promise<void>;
  readonly logLines: Record<string, any>[];
}

async function setupS3(t: ExecutionContext, database: TestDatabase): Promise<S3Setup> {
  const s3 = await startS3Server(t, { prefix: 'gw/' });
  const clock = testClock({ running: true });
  const raw = fastJobsConfig();
  const { logger, lines } = capturedLogger('warn');
  const gateway = await startGateway(t, database, {
    raw: { ...raw, storage: { ...raw.storage, blobs: s3.blobsConfig } },
    env: s3.env,
    jobRunner: true,
    now: clock.now,
    logger,
  });
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // as the gateway's store does
  const { S3Client, ListObjectsV2Command, DeleteObjectCommand } = await import('@aws-sdk/client-s3');
  const sdk = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
  t.teardown(() => sdk.destroy());
  return {
    gateway,
    s3,
    clock,
    client,
    logLines: lines,
    async objects() {
      const listed = await sdk.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
      return (listed.Contents ?? []).map((object) => object.Key!).sort();
    },
    async deleteObject(key) {
      await sdk.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: key }));
    },
  };
}

async function getBytes(gateway: { url: string }, key: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const response = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

async function fileRows(database: TestDatabase, accountId: string): Promise<any[]> {
  return database.db('files').where({ account_id: accountId }).orderBy('id');
}

testOnBackends('s3: every file, generation and job input/output path works against the S3-compatible test server, with Range and gc', async (t, database) => {
  const { gateway, client, clock, objects } = await setupS3(t, database);
  // An image generation: its result stored in the bucket, served by the generation and the file routes.
  const imageBody = { model: 'sim/image', prompt: 'a lighthouse', n: 1, size: '1024x1024', quality: 'low' };
  const quote = await api(gateway, client.key, 'POST', '/v1/images/price', imageBody);
  t.is(quote.body.price_rub, '0.9900');
  const images = await api(gateway, client.key, 'POST', '/v1/images/generations', imageBody);
  t.is(images.status, 200);
  const png = Buffer.from(images.body.data[0].b64_json, 'base64');
  const [imageRow] = await fileRows(database, client.accountId);
  t.is(imageRow.purpose, 'image');
  t.is(Number(imageRow.bytes), png.length);
  t.is(imageRow.sha256, sha256(png));
  const imageContent = await getBytes(gateway, client.key, `/v1/files/${imageRow.id}/content`);
  t.is(imageContent.status, 200);
  t.deepEqual(imageContent.bytes, png);
  t.is(imageContent.headers.get('content-length'), String(png.length));
  const generation = await api(gateway, client.key, 'GET', '/v1/generations?type=image');
  t.deepEqual((await getBytes(gateway, client.key, `/v1/generations/image/${generation.body.data[0].id}/content`)).bytes, png);

  // A video with an inline reference image: the upload is stored in the bucket, read back from it
  // by the runner's submit, and the MP4 it makes is stored there too.
  const reference = patternPng(64, 36, 'reference');
  const video = await api(gateway, client.key, 'POST', '/v1/videos', {
    model: 'sim/video',
    prompt: 'a lighthouse at night [[sim:job-seconds=0.2]]',
    seconds: '4',
    input_reference: `data:image/png;base64,${reference.toString('base64')}`,
    wait: true,
  });
  t.is(video.body.status, 'completed');
  t.is(video.body.charged_rub, '37.8000');
  const upload = (await fileRows(database, client.accountId)).find((row) => row.purpose === 'upload');
  t.is(upload.sha256, sha256(reference), 'the reference is stored as uploaded');
  const mp4 = await getBytes(gateway, client.key, `/v1/videos/${video.body.id}/content`);
  t.is(mp4.status, 200);
  t.is(mp4.headers.get('content-type'), 'video/mp4');
  const videoRow = (await fileRows(database, client.accountId)).find((row) => row.purpose === 'video');
  t.is(sha256(mp4.bytes), videoRow.sha256);
  // Range: exact bytes, from the store's own range.
  const middle = await getBytes(gateway, client.key, `/v1/videos/${video.body.id}/content`, { range: 'bytes=100-1123' });
  t.is(middle.status, 206);
  t.is(middle.headers.get('content-range'), `bytes 100-1123/${mp4.bytes.length}`);
  t.deepEqual(middle.bytes, mp4.bytes.subarray(100, 1124));
  const first = await getBytes(gateway, client.key, `/v1/files/${videoRow.id}/content`, { range: 'bytes=0-0' });
  t.is(first.status, 206);
  t.deepEqual(first.bytes, mp4.bytes.subarray(0, 1));
  const last = await getBytes(gateway, client.key, `/v1/files/${videoRow.id}/content`, { range: 'bytes=-1' });
  t.is(last.status, 206);
  t.deepEqual(last.bytes, mp4.bytes.subarray(mp4.bytes.length - 1));
  const beyond = await getBytes(gateway, client.key, `/v1/files/${videoRow.id}/content`, { range: `bytes=${mp4.bytes.length}-` });
  t.is(beyond.status, 416);
  t.is(beyond.headers.get('content-range'), `bytes */${mp4.bytes.length}`);

  // Music: two tracks stored in the bucket, with Range on a track.
  const song = await api(gateway, client.key, 'POST', '/v1/audio/music', { model: 'sim/song', mode: 'custom', prompt: '[Verse] tide [[sim:job-seconds=0.2]]', style: 'ambient', title: 'Tide', wait: true });
  t.is(song.body.status, 'completed');
  const track = await getBytes(gateway, client.key, `/v1/audio/music/${song.body.id}/content?index=1`);
  t.is(track.status, 200);
  const trackRange = await getBytes(gateway, client.key, `/v1/audio/music/${song.body.id}/content?index=1`, { range: 'bytes=10-19' });
  t.is(trackRange.status, 206);
  t.deepEqual(trackRange.bytes, track.bytes.subarray(10, 20));

  // Every row's bytes are one object of the bucket under the prefix, of the row's size.
  const rows = await fileRows(database, client.accountId);
  t.deepEqual(rows.map((row) => row.purpose).sort(), ['image', 'music', 'music', 'upload', 'video']);
  t.deepEqual(await objects(), rows.map((row) => `gw/${row.storage_key}`).sort());
  for (const row of rows) t.deepEqual(await gateway.services.blobs.stat(row.storage_key), { bytes: Number(row.bytes) }, row.purpose);

  // Keep the image; delete the video (its object goes at once); expire the rest and collect.
  t.is((await api(gateway, client.key, 'PATCH', `/v1/files/${imageRow.id}/keep`)).status, 200);
  t.is((await api(gateway, client.key, 'DELETE', `/v1/videos/${video.body.id}`)).status, 200);
  t.is(await gateway.services.blobs.stat(videoRow.storage_key), undefined, 'the deleted video is gone from the bucket');
  clock.advance(25 * 3600_000); // past storage.temp_ttl (24h)
  // The runner's own gc chore may take some of them at the same time: either way, once this
  // round returns every expired row is marked and its object gone.
  await gateway.services.files.collectGarbage();
  const expired = rows.filter((row) => row.purpose === 'upload' || row.purpose === 'music').map((row) => row.id);
  const marked = await database.db('files').whereIn('id', expired).whereNotNull('deleted_at');
  t.is(marked.length, 3, 'the upload and the two tracks are marked deleted');
  t.deepEqual(await objects(), [`gw/${imageRow.storage_key}`], 'only the kept image is left in the bucket');
  t.deepEqual((await getBytes(gateway, client.key, `/v1/files/${imageRow.id}/content`)).bytes, png);
  t.deepEqual(await charges(database, client.accountId), [9_900n, 378_000n, 72_000n]);
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('s3: image edits and upscales store their results, a video upscale its input and its result, in the bucket', async (t, database) => {
  const { gateway, client, objects } = await setupS3(t, database);
  const multipart = async (path: string, form: FormData) => {
    const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${client.key}` }, body: form });
    return { status: response.status, body: (await response.json()) as any };
  };
  // An image edit: its references go to the vendor only (never stored), its result is a file in the bucket.
  const edit = new FormData();
  edit.append('model', 'sim/image');
  edit.append('prompt', 'the same lighthouse at night');
  edit.append('quality', 'low');
  edit.append('image', new Blob([patternPng(64, 64, 'edit reference')], { type: 'image/png' }), 'reference.png');
  const edited = await multipart('/v1/images/edits', edit);
  t.is(edited.status, 200, JSON.stringify(edited.body));
  const editedPng = Buffer.from(edited.body.data[0].b64_json, 'base64');
  // An image upscale: its result is a file in the bucket.
  const upscale = new FormData();
  upscale.append('image', new Blob([patternPng(120, 80, 'upscale input')], { type: 'image/png' }), 'small.png');
  upscale.append('scale', '2');
  const upscaled = await multipart('/v1/images/upscale', upscale);
  t.is(upscaled.status, 200, JSON.stringify(upscaled.body));
  t.is(upscaled.body.size, '240x160');
  const upscaledPng = Buffer.from(upscaled.body.data[0].b64_json, 'base64');
  const images = (await fileRows(database, client.accountId)).filter((row) => row.purpose === 'image');
  t.deepEqual(images.map((row) => row.sha256), [sha256(editedPng), sha256(upscaledPng)]);
  for (const [row, png] of [[images[0], editedPng], [images[1], upscaledPng]] as const) {
    t.deepEqual((await getBytes(gateway, client.key, `/v1/files/${row.id}/content`)).bytes, png);
  }

  // A video upscale: the uploaded MP4 is stored in the bucket, read back from it by the runner's
  // submit, and the upscaled MP4 is stored there too, with Range.
  const input = mp4Video({ width: 640, height: 360, seconds: 4, seed: 's3 upscale' });
  const video = new FormData();
  video.append('video', new Blob([input], { type: 'video/mp4' }), 'clip.mp4');
  video.append('upscale_factor', '2');
  video.append('prompt', 'sharper [[sim:job-seconds=0.2]] [[sim:cost=0.02]]');
  const job = await multipart('/v1/videos/upscale', video);
  t.is(job.status, 200, JSON.stringify(job.body));
  const done = await pollJob(gateway, client.key, `/v1/videos/${job.body.id}`);
  t.is(done.status, 'completed');
  const upload = (await fileRows(database, client.accountId)).find((row) => row.purpose === 'upload');
  t.is(upload.sha256, sha256(input), 'the uploaded video is stored as sent');
  const result = (await fileRows(database, client.accountId)).find((row) => row.purpose === 'video');
  const mp4 = await getBytes(gateway, client.key, `/v1/videos/${job.body.id}/content`);
  t.is(mp4.status, 200);
  t.is(sha256(mp4.bytes), result.sha256);
  const range = await getBytes(gateway, client.key, `/v1/videos/${job.body.id}/content`, { range: 'bytes=8-15' });
  t.is(range.status, 206);
  t.deepEqual(range.bytes, mp4.bytes.subarray(8, 16));

  const rows = await fileRows(database, client.accountId);
  t.deepEqual(rows.map((row) => row.purpose).sort(), ['image', 'image', 'upload', 'video']);
  t.deepEqual(await objects(), rows.map((row) => `gw/${row.storage_key}`).sort(), 'every file is one object of the bucket');
  t.deepEqual(await charges(database, client.accountId), [9_900n, 36_000n, 18_000n], 'the edit 0.99, the upscale 3.60, the video upscale USD 0.02 × 90.00 RUB');
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('s3: a 206 of a 20 MB file reads only its range from the store', async (t, database) => {
  const { gateway, client } = await setupS3(t, database);
  const data = Buffer.alloc(20 * 1024 * 1024);
  for (let index = 0; index < data.length; index += 4) data.writeUInt32BE(index, index);
  const file = await gateway.services.files.save(client.accountId, 'upload', 'video/mp4', data, { filename: 'big.mp4' });
  // Every byte the gateway reads from the store is counted on its way out of the store.
  const { blobs } = gateway.services;
  const open = blobs.open.bind(blobs);
  let read = 0;
  blobs.open = async (key, range) => {
    const stream: Readable = await open(key, range);
    stream.on('data', (chunk: Buffer) => (read += chunk.length));
    return stream;
  };
  const range = await getBytes(gateway, client.key, `/v1/files/${file.id}/content`, { range: 'bytes=10485760-10551295' });
  t.is(range.status, 206);
  t.is(range.headers.get('content-range'), `bytes 10485760-10551295/${data.length}`);
  t.deepEqual(range.bytes, data.subarray(10_485_760, 10_551_296));
  t.is(read, 65_536, 'only the 64 KB asked for came from the store');
  read = 0;
  const whole = await getBytes(gateway, client.key, `/v1/files/${file.id}/content`);
  t.is(whole.status, 200);
  t.is(sha256(whole.bytes), file.sha256);
  t.is(read, data.length);
});

testOnBackends('s3: a file whose object is gone is a 404 file_content_missing; a store down is a 503 storage_unavailable, /readyz names it, an image is not charged', async (t, database) => {
  const { gateway, client, s3, deleteObject } = await setupS3(t, database);
  const png = patternPng(16, 16, 'kept');
  const file = await gateway.services.files.save(client.accountId, 'upload', 'image/png', png);
  const other = await gateway.services.files.save(client.accountId, 'upload', 'image/png', png);
  await deleteObject(`gw/${file.storageKey}`);
  const missing = await api(gateway, client.key, 'GET', `/v1/files/${file.id}/content`);
  t.is(missing.status, 404);
  t.deepEqual(missing.body, {
    error: {
      message: `The content of file ${file.id} is missing from the gateway's file storage: the file exists, but its bytes are gone from the store. Ask the operator to check the storage.`,
      type: 'invalid_request_error',
      param: null,
      code: 'file_content_missing',
    },
  });
  t.is(missing.headers.get('x-should-retry'), 'false');
  t.is((await api(gateway, client.key, 'GET', `/v1/files/${file.id}`)).status, 200, 'the row is still there');
  t.deepEqual((await fetch(`${gateway.url}/readyz`).then((r) => r.json())) as unknown, { status: 'ready' });

  await s3.interrupt();
  const down = await api(gateway, client.key, 'GET', `/v1/files/${other.id}/content`);
  t.is(down.status, 503);
  t.deepEqual(down.body, {
    error: { message: 'File storage is unreachable at the moment; nothing was charged. Retry in a few seconds.', type: 'server_error', param: null, code: 'storage_unavailable' },
  });
  t.is(down.headers.get('x-should-retry'), 'true');
  t.is(down.headers.get('retry-after'), '5');
  const ranged = await api(gateway, client.key, 'GET', `/v1/files/${other.id}/content`, undefined, { range: 'bytes=0-9' });
  t.is(ranged.status, 503);
  t.is(ranged.body.error.code, 'storage_unavailable');
  const ready = await fetch(`${gateway.url}/readyz`);
  t.is(ready.status, 503);
  const readiness = (await ready.json()) as { status: string; reason: string };
  t.is(readiness.status, 'unavailable');
  t.true(readiness.reason.startsWith(`file storage unavailable: the ${gateway.services.blobs.description} is unavailable: `), readiness.reason);

  const balanceBefore = await gateway.services.ledger.balance(client.accountId);
  const image = await api(gateway, client.key, 'POST', '/v1/images/generations', { model: 'sim/image', prompt: 'a storm', n: 2, size: '1024x1024', quality: 'low' });
  t.is(image.status, 503);
  t.is(image.body.error.code, 'storage_unavailable');
  t.deepEqual(await charges(database, client.accountId), [], 'the images that could not be stored are not charged');
  const holds = await database.db('holds').where({ account_id: client.accountId });
  t.is(holds.length, 1);
  t.is(holds[0].status, 'released');
  t.deepEqual(await gateway.services.ledger.balance(client.accountId), balanceBefore);
  t.is(await database.db('generations').where({ account_id: client.accountId }).count({ n: '*' }).first().then((row: any) => Number(row.n)), 0);
  await assertLedgerInvariants(t, database.db);

  await s3.resume();
  t.is((await fetch(`${gateway.url}/readyz`)).status, 200);
  t.deepEqual((await getBytes(gateway, client.key, `/v1/files/${other.id}/content`)).bytes, png);
});

testOnBackends('s3: a job whose result cannot be stored waits for the store and completes once; a job whose input is gone fails with input_file_missing, released', async (t, database) => {
  const { gateway, client, s3, clock, deleteObject, logLines } = await setupS3(t, database);
  // Store down while the song is collected: rescheduled, nothing charged, nothing failed.
  await s3.interrupt();
  const song = await api(gateway, client.key, 'POST', '/v1/audio/music', { model: 'sim/instrumental', mode: 'custom', prompt: 'rain [[sim:job-seconds=0.2]]' });
  t.is(song.status, 200);
  await eventually(() => logLines.some((line) => line.msg === 'job result cannot be stored: the blob store is unavailable; retrying later' && line.job_id === song.body.id), {
    what: 'the runner found the store down while collecting',
  });
  const waiting = await api(gateway, client.key, 'GET', `/v1/audio/music/${song.body.id}`);
  t.false(['completed', 'failed'].includes(waiting.body.status), `still running: ${waiting.body.status}`);
  t.deepEqual(await charges(database, client.accountId), []);
  t.is(await database.db('holds').where({ account_id: client.accountId, status: 'active' }).count({ n: '*' }).first().then((row: any) => Number(row.n)), 1, 'its money stays held');
  await s3.resume();
  clock.advance(15_000); // past the longest backoff (10 s)
  const done = await pollJob(gateway, client.key, `/v1/audio/music/${song.body.id}`);
  t.is(done.status, 'completed');
  t.is((await getBytes(gateway, client.key, `/v1/audio/music/${song.body.id}/content`)).status, 200);
  t.deepEqual(await charges(database, client.accountId), [72_000n], 'charged once');

  // A video whose reference file lost its object before the runner sent it: failed, released.
  const reference = await gateway.services.files.save(client.accountId, 'upload', 'image/png', patternPng(64, 36, 'gone'));
  await deleteObject(`gw/${reference.storageKey}`);
  const video = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'fog [[sim:job-seconds=0.1]]', seconds: '4', input_reference: { file_id: String(reference.id) } });
  t.is(video.status, 200);
  const failed = await pollJob(gateway, client.key, `/v1/videos/${video.body.id}`);
  t.is(failed.status, 'failed');
  t.deepEqual(failed.error, {
    code: 'input_file_missing',
    message: `the content of input file ${reference.id} is missing from the gateway's file storage (ask the operator to check the storage); nothing was charged`,
  });
  t.is(failed.charged_rub, '0.0000');
  t.deepEqual(await charges(database, client.accountId), [72_000n], 'the failed video charged nothing');
  await assertJobMoneySettled(t, database, client.accountId);
});

testOnBackends('s3: gc while the store is down removes nothing and marks nothing; the next round after it collects every expired file', async (t, database) => {
  const { gateway, client, s3, clock, objects, logLines } = await setupS3(t, database);
  const saved = [];
  for (let index = 0; index < 3; index++) {
    saved.push(await gateway.services.files.save(client.accountId, 'upload', 'image/png', patternPng(8, 8, `gc ${index}`), { expiresAt: clock.now() + 1_000 }));
  }
  const kept = await gateway.services.files.save(client.accountId, 'upload', 'image/png', patternPng(8, 8, 'kept'));
  await gateway.services.files.keep(client.accountId, kept.id, gateway.services.config.storage.permanentQuotaBytes);
  await s3.interrupt();
  clock.advance(61_000); // the files expire, and the runner's own gc chore (every minute) is due
  await t.throwsAsync(gateway.services.files.collectGarbage(), { instanceOf: BlobStoreUnavailableError });
  await eventually(() => logLines.some((line) => line.msg === 'expired files not removed: the blob store is unavailable; retrying next round'), {
    what: "the runner's gc round met the store down",
  });
  const unmarked = await database.db('files').whereIn('id', saved.map((file) => file.id)).whereNull('deleted_at');
  t.is(unmarked.length, 3, 'no row is marked deleted while its object may still be there');
  await s3.resume();
  t.is((await objects()).length, 4, 'every object is still in the bucket');
  await gateway.services.files.collectGarbage();
  const marked = await database.db('files').whereIn('id', saved.map((file) => file.id)).whereNotNull('deleted_at');
  t.is(marked.length, 3);
  t.deepEqual(await objects(), [`gw/${kept.storageKey}`], 'only the kept file is left');
});

testOnBackends('s3: a job whose input cannot be read while the store is down waits for it and is sent once it is back, charged once', async (t, database) => {
  const { gateway, client, s3, clock, logLines } = await setupS3(t, database);
  const reference = await gateway.services.files.save(client.accountId, 'upload', 'image/png', patternPng(64, 36, 'waits'));
  await s3.interrupt();
  const video = await api(gateway, client.key, 'POST', '/v1/videos', { model: 'sim/video', prompt: 'dusk [[sim:job-seconds=0.1]]', seconds: '4', input_reference: { file_id: String(reference.id) } });
  t.is(video.status, 200);
  await eventually(() => logLines.some((line) => line.msg === 'job input cannot be read: the blob store is unavailable; retrying later' && line.job_id === video.body.id), {
    what: 'the runner found the store down while sending the job',
  });
  const waiting = await api(gateway, client.key, 'GET', `/v1/videos/${video.body.id}`);
  t.is(waiting.body.status, 'queued');
  t.is(await database.db('holds').where({ account_id: client.accountId, status: 'active' }).count({ n: '*' }).first().then((row: any) => Number(row.n)), 1, 'its money stays held');
  await s3.resume();
  clock.advance(15_000); // past the longest backoff (10 s)
  const done = await pollJob(gateway, client.key, `/v1/videos/${video.body.id}`);
  t.is(done.status, 'completed');
  t.deepEqual(await charges(database, client.accountId), [378_000n], '4 s × 9.00 RUB + one reference × 1.80 RUB, once');
  await assertJobMoneySettled(t, database, client.accountId);
});
