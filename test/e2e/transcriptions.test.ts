// Transcription through the official SDK: the duration is measured from the audio itself and
// charged per second; a 26 MB upload is refused with 413 while it streams, keeping nothing.
import { existsSync, readdirSync } from 'node:fs';
import OpenAI, { toFile } from 'openai';
import { priceInUnits } from '../../src/billing/pricing.js';
import { audioSeconds } from '../../src/media-files/inspect.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

testOnBackends('transcriptions: json and text, charged per second measured from the audio; 413 past 25 MB; corrupt audio 422', async (t, database) => {
  const gateway = await startGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: client.key, maxRetries: 0 });
  const lastCharge = async () => -BigInt((await database.db('ledger_transactions').where({ account_id: client.accountId, kind: 'charge' }).orderBy('id', 'desc').first()).amount_units);

  const speech = await openai.audio.speech.create({ model: 'sim/tts', voice: 'alloy', input: 'x'.repeat(400) });
  const mp3 = Buffer.from(await speech.arrayBuffer());
  const seconds = (await audioSeconds(mp3, 'audio/mpeg'))!;
  t.true(seconds > 20 && seconds < 40, `${seconds} s of audio`);

  const json = await openai.audio.transcriptions.create({ model: 'sim/stt', file: await toFile(mp3, 'speech.mp3', { type: 'audio/mpeg' }), response_format: 'json' });
  t.regex(json.text, /Simulated transcript of \d+(\.\d)? seconds/);
  t.is(await lastCharge(), priceInUnits([{ quantity: Math.ceil(seconds), price: '0.54', per: 60 }]));
  const text = await openai.audio.transcriptions.create({ model: 'sim/stt', file: await toFile(mp3, 'speech.mp3', { type: 'audio/mpeg' }), response_format: 'text' });
  t.is(typeof text, 'string');
  t.regex(text as unknown as string, /Simulated transcript/);

  const corrupt = (await t.throwsAsync(openai.audio.transcriptions.create({ model: 'sim/stt', file: await toFile(Buffer.from('not audio at all'), 'x.mp3') }))) as any;
  t.is(corrupt.status, 422);

  // Uploads are read into memory and never written to disk (src/http/multipart.ts); what the
  // gateway does write is the file store and the files table: the refused upload adds to neither.
  const storage = gateway.services.config.storage.dir;
  const stored = () => (existsSync(storage) ? readdirSync(storage, { recursive: true }).map(String).sort() : []);
  const storedBefore = stored();
  const fileRows = async () => Number((await database.db('files').count({ n: '*' }).first())?.n);
  const fileRowsBefore = await fileRows();
  const charges = await database.db('ledger_transactions').where({ account_id: client.accountId }).count({ n: '*' }).first();
  const form = new FormData();
  form.append('model', 'sim/stt');
  form.append('file', new Blob([new Uint8Array(26 * 1024 * 1024)], { type: 'audio/mpeg' }), 'big.mp3');
  const big = await fetch(`${gateway.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${client.key}` }, body: form });
  t.is(big.status, 413);
  t.regex(((await big.json()) as any).error.message, /larger than 25 MB/);
  t.deepEqual(stored(), storedBefore, 'nothing was added to the file store');
  t.is(await fileRows(), fileRowsBefore, 'no file row was written');
  t.deepEqual(await database.db('ledger_transactions').where({ account_id: client.accountId }).count({ n: '*' }).first(), charges, 'nothing charged');
  t.is((await gateway.services.ledger.balance(client.accountId)).heldUnits, 0n);
});
