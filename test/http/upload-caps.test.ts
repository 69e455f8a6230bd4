// The upload caps docs/http-api.md states, on the real multipart routes: 25 MB per reference
// image (images/edits, images/upscale) and per video reference (videos' input_reference),
// enforced while the upload streams (413 file_too_large, nothing held or stored), exactly 25 MB
// passes the cap (and is then judged as an image: these bytes are not one); and the file count
// (images/edits takes up to 16 images, the other routes one file): past it, 413 too_many_files.
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

const megabytes25 = 25 * 1024 * 1024;

const capped: { path: string; field: string; fields: Record<string, string> }[] = [
  { path: '/v1/images/edits', field: 'image', fields: { model: 'sim/image', prompt: 'a cat' } },
  { path: '/v1/images/upscale', field: 'image', fields: { model: 'sim/image-upscale' } },
  { path: '/v1/videos', field: 'input_reference', fields: { model: 'sim/video', prompt: 'a cat', seconds: '4' } },
];

testOnBackends('reference uploads: 25 MB + 1 byte is a 413 file_too_large while it streams, exactly 25 MB is read; past the file count, too_many_files', async (t, database) => {
  const gateway = await startGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 100_000_000n });
  const post = async (path: string, fields: Record<string, string>, files: { field: string; bytes: number; name: string }[]) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (const file of files) form.append(file.field, new Blob([new Uint8Array(file.bytes)], { type: 'image/png' }), file.name);
    const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    return { status: response.status, body: (await response.json()) as any };
  };
  const nothingKept = async (what: string) => {
    t.is((await gateway.services.ledger.balance(accountId)).heldUnits, 0n, `${what}: nothing held`);
    t.is(Number((await database.db('files').count({ n: '*' }).first())?.n), 0, `${what}: nothing stored`);
  };

  for (const { path, field, fields } of capped) {
    const over = await post(path, fields, [{ field, bytes: megabytes25 + 1, name: 'big.png' }]);
    t.is(over.status, 413, `${path}: ${JSON.stringify(over.body)}`);
    t.is(over.body.error.code, 'file_too_large', path);
    t.is(over.body.error.message, 'The file "big.png" is larger than 25 MB.', path);
    t.is(over.body.error.param, field, path);
    await nothingKept(`${path} over the cap`);
    // Exactly at the cap the upload is read whole, then refused for what it is (zeros, no image).
    const at = await post(path, fields, [{ field, bytes: megabytes25, name: 'exact.png' }]);
    t.not(at.status, 413, `${path} at exactly 25 MB: ${JSON.stringify(at.body).slice(0, 300)}`);
    t.is(at.status, 422, `${path} at exactly 25 MB: ${JSON.stringify(at.body).slice(0, 300)}`);
    await nothingKept(`${path} at the cap`);
  }

  const tiny = (field: string, count: number) => Array.from({ length: count }, (_, index) => ({ field, bytes: 8, name: `${index}.png` }));
  const manyImages = await post('/v1/images/edits', capped[0]!.fields, tiny('image[]', 17));
  t.is(manyImages.status, 413, JSON.stringify(manyImages.body));
  t.is(manyImages.body.error.code, 'too_many_files');
  t.is(manyImages.body.error.message, 'At most 16 files can be uploaded at once.');
  const sixteen = await post('/v1/images/edits', capped[0]!.fields, tiny('image[]', 16));
  t.is(sixteen.status, 422, `16 images pass the count (then are judged as images): ${JSON.stringify(sixteen.body).slice(0, 300)}`);
  for (const { path, field, fields } of capped.slice(1)) {
    const two = await post(path, fields, tiny(field, 2));
    t.is(two.status, 413, `${path}: ${JSON.stringify(two.body)}`);
    t.is(two.body.error.code, 'too_many_files', path);
    t.is(two.body.error.message, 'At most 1 file can be uploaded at once.', path);
  }
  await nothingKept('too many files');
});
