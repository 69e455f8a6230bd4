// The cabinet's gallery and files over HTTP with a logged-in session: generations with their
// files' state, content with Range, keep (all of a generation's files or none, within the
// quota), delete, the quota; another account's ids are a 404 on every route.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loginAs, cabinetHeaders, type CabinetLogin } from '../helpers/cabinet.js';
import { testOnBackends } from '../helpers/backends.js';
import { exampleConfigPath, startGateway, type TestGateway } from '../helpers/gateway.js';

function call(gateway: TestGateway, login: CabinetLogin, method: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { method, headers: method === 'GET' ? { cookie: login.cookie, ...headers } : cabinetHeaders(login, headers) });
}

async function json(response: Response): Promise<any> {
  return response.json();
}

/** Two images made in the cabinet's playground: the account, its login and the two generations (newest first). */
async function twoImages(gateway: TestGateway) {
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  const made = await fetch(`${gateway.url}/cabinet/api/images/generations`, {
    method: 'POST',
    headers: cabinetHeaders(login, { 'content-type': 'application/json' }),
    body: JSON.stringify({ model: 'sim/image', prompt: 'a blue circle', quality: 'low', n: 2 }),
  });
  if (made.status !== 200) throw new Error(`image generation answered ${made.status}: ${await made.text()}`);
  const list = await json(await call(gateway, login, 'GET', '/cabinet/api/generations?type=image'));
  return { accountId, login, generations: list.data as any[] };
}

testOnBackends('gallery: generations with their files, content with Range, keep, delete; files: list, content, keep, delete, quota', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { login, generations } = await twoImages(gateway);
  t.is(generations.length, 2);
  const [second, first] = generations;
  t.like(first, { object: 'generation', type: 'image', model: 'sim/image', prompt: 'a blue circle', status: 'completed', charged_rub: '0.9900' });
  t.is(first.files.length, 1);
  t.like(first.files[0], { id: first.file_ids[0], object: 'file', purpose: 'image', media_type: 'image/png', permanent: false });
  t.is(typeof first.files[0].expires_at, 'number');
  const shown = await json(await call(gateway, login, 'GET', `/cabinet/api/generations/image/${first.id}`));
  t.deepEqual(shown, first);

  const ranged = await call(gateway, login, 'GET', `/cabinet/api/generations/image/${first.id}/content`, { range: 'bytes=0-7' });
  t.is(ranged.status, 206);
  t.is(ranged.headers.get('content-range'), `bytes 0-7/${first.files[0].bytes}`);
  t.deepEqual([...new Uint8Array(await ranged.arrayBuffer())], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

  t.deepEqual(await json(await call(gateway, login, 'GET', '/cabinet/api/files/quota')), { used_bytes: 0, quota_bytes: 1024 ** 3 });
  const kept = await call(gateway, login, 'PATCH', `/cabinet/api/generations/image/${first.id}/keep`);
  t.is(kept.status, 200);
  const keptBody = await json(kept);
  t.like(keptBody.files[0], { id: first.file_ids[0], permanent: true, expires_at: null });
  t.deepEqual(await json(await call(gateway, login, 'GET', '/cabinet/api/files/quota')), { used_bytes: first.files[0].bytes, quota_bytes: 1024 ** 3 });

  const deleted = await call(gateway, login, 'DELETE', `/cabinet/api/generations/image/${second.id}`);
  t.is(deleted.status, 200);
  t.deepEqual(await json(deleted), { id: second.id, object: 'generation.deleted', type: 'image', deleted: true });
  const afterDelete = await json(await call(gateway, login, 'GET', `/cabinet/api/generations/image/${second.id}`));
  t.deepEqual(afterDelete.files, [null]);
  t.is(afterDelete.charged_rub, '0.9900', 'the entry and its charge stay');
  const gone = await call(gateway, login, 'GET', `/cabinet/api/generations/image/${second.id}/content`);
  t.is(gone.status, 404);
  t.is((await json(gone)).error.code, 'content_expired');
  t.is((await call(gateway, login, 'PATCH', `/cabinet/api/generations/image/${second.id}/keep`)).status, 404);

  // Files: the deleted generation's file is no longer listed.
  const files = await json(await call(gateway, login, 'GET', '/cabinet/api/files'));
  t.deepEqual(files.data.map((file: any) => file.id), [first.file_ids[0]]);
  const fileId = first.file_ids[0];
  const content = await call(gateway, login, 'GET', `/cabinet/api/files/${fileId}/content`, { range: 'bytes=-4' });
  t.is(content.status, 206);
  t.deepEqual([...new Uint8Array(await content.arrayBuffer())], [0xae, 0x42, 0x60, 0x82], 'the PNG ends with its IEND CRC');
  const keepAgain = await call(gateway, login, 'PATCH', `/cabinet/api/files/${fileId}/keep`);
  t.is(keepAgain.status, 200);
  t.true((await json(keepAgain)).permanent);
  const removed = await call(gateway, login, 'DELETE', `/cabinet/api/files/${fileId}`);
  t.is(removed.status, 200);
  t.deepEqual(await json(removed), { id: fileId, object: 'file.deleted', deleted: true });
  t.is((await call(gateway, login, 'GET', `/cabinet/api/files/${fileId}`)).status, 404);
  t.is((await call(gateway, login, 'DELETE', `/cabinet/api/files/${fileId}`)).status, 404);
  t.deepEqual(await json(await call(gateway, login, 'GET', '/cabinet/api/files/quota')), { used_bytes: 0, quota_bytes: 1024 ** 3 });
});

testOnBackends("another account's generations and files are a 404 on every cabinet route, and stay as they were", async (t, database) => {
  const gateway = await startGateway(t, database);
  const owner = await twoImages(gateway);
  const generation = owner.generations[0];
  const fileId = generation.file_ids[0];
  const { accountId: otherId } = await gateway.newClient();
  const other = await loginAs(gateway.url, gateway.services, { account: otherId });
  const routes: [string, string][] = [
    ['GET', `/cabinet/api/generations/image/${generation.id}`],
    ['GET', `/cabinet/api/generations/image/${generation.id}/content`],
    ['PATCH', `/cabinet/api/generations/image/${generation.id}/keep`],
    ['DELETE', `/cabinet/api/generations/image/${generation.id}`],
    ['GET', `/cabinet/api/files/${fileId}`],
    ['GET', `/cabinet/api/files/${fileId}/content`],
    ['PATCH', `/cabinet/api/files/${fileId}/keep`],
    ['DELETE', `/cabinet/api/files/${fileId}`],
  ];
  for (const [method, path] of routes) {
    const response = await call(gateway, other, method, path);
    t.is(response.status, 404, `${method} ${path}`);
    t.is((await json(response)).error.code, 'not_found', `${method} ${path}`);
  }
  t.deepEqual((await json(await call(gateway, other, 'GET', '/cabinet/api/generations?type=image'))).data, []);
  t.deepEqual((await json(await call(gateway, other, 'GET', '/cabinet/api/files'))).data, []);
  const intact = await json(await call(gateway, owner.login, 'GET', `/cabinet/api/generations/image/${generation.id}`));
  t.like(intact.files[0], { id: fileId, permanent: false });
});

testOnBackends('keeping a generation keeps all its files or none within the permanent quota; a running one cannot be kept or deleted', async (t, database) => {
  const raw = parse(readFileSync(exampleConfigPath, 'utf8')) as Record<string, any>;
  const gateway = await startGateway(t, database, { raw: { ...raw, storage: { ...raw.storage, permanent_quota: '1000B' } } });
  const { accountId, keyId } = await gateway.newClient();
  const { files, generations } = gateway.services;
  const save = (bytes: number) => files.save(accountId, 'music', 'audio/mpeg', new Uint8Array(bytes).fill(7));
  const tracks = [await save(600), await save(600)];
  const single = await save(600);
  const record = (fileIds: number[], status = 'completed') =>
    generations.record([{ accountId, keyId, type: 'music', model: 'sim/song', prompt: 'a song', chargedUnits: 10_000n, fileIds, requestId: `req_${fileIds.join('_')}`, status }]);
  const [song] = await record(tracks.map((file) => file.id));
  const [instrumental] = await record([single.id]);
  const [running] = await record([], 'in_progress');
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });

  const refused = await call(gateway, login, 'PATCH', `/cabinet/api/generations/music/${song}/keep`);
  t.is(refused.status, 409);
  const body = await json(refused);
  t.is(body.error.code, 'quota_exceeded');
  t.regex(body.error.message, /\(1200 bytes\).*0 of 1000 bytes/);
  t.deepEqual(
    (await json(await call(gateway, login, 'GET', `/cabinet/api/generations/music/${song}`))).files.map((file: any) => file.permanent),
    [false, false],
    'neither track was kept',
  );
  t.is((await call(gateway, login, 'PATCH', `/cabinet/api/generations/music/${instrumental}/keep`)).status, 200);
  t.deepEqual(await json(await call(gateway, login, 'GET', '/cabinet/api/files/quota')), { used_bytes: 600, quota_bytes: 1000 });
  t.is((await call(gateway, login, 'PATCH', `/cabinet/api/generations/music/${instrumental}/keep`)).status, 200, 'keeping twice is fine');

  for (const method of ['PATCH', 'DELETE']) {
    const response = await call(gateway, login, method, `/cabinet/api/generations/music/${running}${method === 'PATCH' ? '/keep' : ''}`);
    t.is(response.status, 409, method);
    t.is((await json(response)).error.code, 'content_not_ready', method);
  }
});
