// Upload filenames in UTF-8, sent by the official SDK (and by fetch's FormData) as raw UTF-8 in
// the part's Content-Disposition. Before: busboy decoded them as latin1 — `тест ✓.png` was
// stored as mojibake (`ÑÐµÑÑ â..`) — and the content came back as `filename="_____.png"`.
// Now the stored name is what was sent, and the content's Content-Disposition carries an ASCII
// fallback plus the exact name in RFC 5987 form (RFC 6266).
import OpenAI, { toFile } from 'openai';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';
import { api } from '../helpers/jobs.js';

testOnBackends('uploads: a UTF-8 filename is stored as sent and served with filename*=UTF-8', async (t, database) => {
  const gateway = await startGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 100_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const sharp = (await import('sharp')).default;
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } }).png().toBuffer();

  const sent = ['тест ✓.png', "it's (100%) fine*.png"];
  for (const filename of sent) {
    await openai.videos.create({ model: 'sim/video', prompt: 'a reference', seconds: '4', input_reference: await toFile(png, filename, { type: 'image/png' }) });
  }
  const listed = await api(gateway, client.key, 'GET', '/v1/files');
  const uploads = (listed.body.data as any[]).filter((file) => file.purpose === 'upload').reverse();
  t.deepEqual(
    uploads.map((file) => file.filename),
    sent,
  );

  const disposition = async (id: number) => (await fetch(`${gateway.url}/v1/files/${id}/content`, { headers: { authorization: `Bearer ${client.key}` } })).headers.get('content-disposition');
  t.is(await disposition(uploads[0].id), `inline; filename="____ _.png"; filename*=UTF-8''%D1%82%D0%B5%D1%81%D1%82%20%E2%9C%93.png`);
  // % has no place in the fallback (some clients decode it); ' ( ) * are escaped in filename* (RFC 5987 attr-char).
  t.is(await disposition(uploads[1].id), `inline; filename="it's (100_) fine*.png"; filename*=UTF-8''it%27s%20%28100%25%29%20fine%2A.png`);

  // The same through fetch's own FormData (undici), as a browser would send it.
  const form = new FormData();
  form.append('model', 'sim/video');
  form.append('prompt', 'a second reference');
  form.append('seconds', '4');
  form.append('input_reference', new Blob([png], { type: 'image/png' }), 'снимок №1.png');
  const created = await fetch(`${gateway.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${client.key}` }, body: form });
  t.is(created.status, 200);
  const newest = (await api(gateway, client.key, 'GET', '/v1/files')).body.data.find((file: any) => file.purpose === 'upload');
  t.is(newest.filename, 'снимок №1.png');

  // A name past the column's 255 characters is cut between characters, never inside a surrogate pair.
  await openai.videos.create({ model: 'sim/video', prompt: 'a long name', seconds: '4', input_reference: await toFile(png, `${'😀'.repeat(300)}.png`, { type: 'image/png' }) });
  const long = (await api(gateway, client.key, 'GET', '/v1/files')).body.data.find((file: any) => file.purpose === 'upload');
  t.is(long.filename, '😀'.repeat(255));
  t.is(await disposition(long.id), `inline; filename="${'_'.repeat(255)}"; filename*=UTF-8''${'%F0%9F%98%80'.repeat(255)}`);
});
