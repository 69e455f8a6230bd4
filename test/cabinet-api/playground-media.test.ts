// The playground's other kinds over HTTP with a logged-in session, through the cabinet's rows of
// the /v1 handlers: a video (with a reference image), a song, a video upscale, speech and a
// transcription, each quoted first and charged exactly the quote (the upscale at most its
// quote: it settles to the upscaler's cost), once, with the key `cabinet`, even when the page
// submits a job twice with its idempotency key; the jobs polled and their files served by the
// cabinet's routes. Without the CSRF token nothing is made; without the scope on the account's
// cabinet key, 403 naming it.
import type { ExecutionContext } from 'ava';
import { patternPng } from '../../src/sim/media/png.js';
import { mp4Video } from '../../src/sim/media/mp4.js';
import { testOnBackends } from '../helpers/backends.js';
import { type CabinetLogin, cabinetHeaders, loginAs } from '../helpers/cabinet.js';
import { eventually } from '../helpers/eventually.js';
import { assertJobMoneySettled, charges, readAnswer, startJobGateway } from '../helpers/jobs.js';

async function post(url: string, login: CabinetLogin, body: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const form = body instanceof FormData;
  const response = await fetch(url, {
    method: 'POST',
    headers: cabinetHeaders(login, form ? {} : { 'content-type': 'application/json' }),
    body: form ? body : JSON.stringify(body),
  });
  return readAnswer(response);
}

/** GETs a job with the session's cookie until it has ended. */
async function finished(url: string, login: CabinetLogin): Promise<any> {
  return eventually(
    async () => {
      const job = (await (await fetch(url, { headers: { cookie: login.cookie } })).json()) as any;
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    },
    { what: `${url} ended`, intervalMs: 50 },
  );
}

async function cabinetCharges(gatewayUrl: string, login: CabinetLogin): Promise<any[]> {
  return ((await (await fetch(`${gatewayUrl}/cabinet/api/history?kind=charge`, { headers: { cookie: login.cookie } })).json()) as any).data;
}

function assertCharged(t: ExecutionContext, rows: any[], model: string, amountRub: string): void {
  const matching = rows.filter((row) => row.model === model);
  t.is(matching.length, 1, `one charge for ${model}`);
  t.like(matching[0], { kind: 'charge', amount_rub: amountRub, key_name: 'cabinet' });
}

testOnBackends('playground video and song: quoted, submitted twice with one idempotency key, made once, charged the quote once, served by the cabinet routes', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  const reference = `data:image/png;base64,${patternPng(64, 36, 'reference').toString('base64')}`;

  // Video: 4 s at 1280x720 (9.00 a second) and one reference image (1.80).
  const video = { model: 'sim/video', prompt: `a lighthouse at dusk ${'·'.repeat(29_900)} [[sim:job-seconds=0.2]]`, seconds: '4', size: '1280x720', input_reference: reference };
  const quote = await post(`${gateway.url}/cabinet/api/videos/price`, login, video);
  t.is(quote.status, 200, JSON.stringify(quote.body));
  t.deepEqual(quote.body, { object: 'video.price', model: 'sim/video', seconds: '4', size: '1280x720', references: 1, price_rub: '37.8000', price_usd: '0.42' });
  const first = await post(`${gateway.url}/cabinet/api/videos`, login, { ...video, idempotency_key: 'page-video-1' });
  const again = await post(`${gateway.url}/cabinet/api/videos`, login, { ...video, idempotency_key: 'page-video-1' });
  t.is(first.status, 200, JSON.stringify(first.body));
  t.is(again.status, 200);
  t.is(again.body.id, first.body.id, 'the second click names the first job');
  const madeVideo = await finished(`${gateway.url}/cabinet/api/videos/${first.body.id}`, login);
  t.like(madeVideo, { status: 'completed', charged_rub: '37.8000', model: 'sim/video' });
  const content = await fetch(`${gateway.url}/cabinet/api/videos/${first.body.id}/content`, { headers: { cookie: login.cookie } });
  t.is(content.status, 200);
  t.is(content.headers.get('content-type'), 'video/mp4');
  t.true((await content.arrayBuffer()).byteLength > 0);

  // Song: flat 7.20 a generation, two tracks.
  const song = { model: 'sim/song', mode: 'custom', lyrics: '[Verse] night roads [[sim:job-seconds=0.2]]', style: 'synth pop', title: 'Night Drive' };
  const songQuote = await post(`${gateway.url}/cabinet/api/audio/music/price`, login, song);
  t.deepEqual(songQuote.body, { object: 'music.price', model: 'sim/song', tracks: 2, price_rub: '7.2000', price_usd: '0.08' });
  const [songOnce, songTwice] = await Promise.all([1, 2].map(() => post(`${gateway.url}/cabinet/api/audio/music`, login, { ...song, idempotency_key: 'page-song-1' })));
  t.is(songOnce!.status, 200, JSON.stringify(songOnce!.body));
  t.is(songTwice!.body.id, songOnce!.body.id, 'two submissions at once make one job');
  const madeSong = await finished(`${gateway.url}/cabinet/api/audio/music/${songOnce!.body.id}`, login);
  t.like(madeSong, { status: 'completed', charged_rub: '7.2000' });
  t.is(madeSong.tracks.length, 2);
  for (const index of [0, 1]) {
    const track = await fetch(`${gateway.url}/cabinet/api/audio/music/${songOnce!.body.id}/content?index=${index}`, { headers: { cookie: login.cookie } });
    t.is(track.status, 200);
    t.is(track.headers.get('content-type'), 'audio/mpeg');
  }

  t.deepEqual(await charges(database, accountId), [378_000n, 72_000n]);
  const history = await cabinetCharges(gateway.url, login);
  assertCharged(t, history, 'sim/video', '-37.8000');
  assertCharged(t, history, 'sim/song', '-7.2000');
  t.is((await database.db('jobs').where({ account_id: accountId })).length, 2);
  await assertJobMoneySettled(t, database, accountId);
});

testOnBackends('playground speech, transcription and video upscale: each quoted by its price route and charged that quote (the upscale at most it)', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });

  // Speech: 1350.00 per 1M characters; 22 characters → 0.0297.
  const speech = { model: 'sim/tts', input: 'Hello from the cabinet', voice: 'nova', response_format: 'mp3' };
  const speechQuote = await post(`${gateway.url}/cabinet/api/audio/speech/price`, login, speech);
  t.deepEqual(speechQuote.body, { object: 'speech.price', model: 'sim/tts', characters: 22, price_rub: '0.0297', price_usd: '0.00033' });
  const spoken = await fetch(`${gateway.url}/cabinet/api/audio/speech`, { method: 'POST', headers: cabinetHeaders(login, { 'content-type': 'application/json' }), body: JSON.stringify(speech) });
  t.is(spoken.status, 200);
  t.is(spoken.headers.get('content-type'), 'audio/mpeg');
  const audio = Buffer.from(await spoken.arrayBuffer());

  // Transcription of that audio: 0.54 a minute, prorated to the second (rounded up).
  const transcriptionForm = () => {
    const form = new FormData();
    form.set('model', 'sim/stt');
    form.set('file', new Blob([audio], { type: 'audio/mpeg' }), 'speech.mp3');
    return form;
  };
  const transcriptionQuote = await post(`${gateway.url}/cabinet/api/audio/transcriptions/price`, login, transcriptionForm());
  t.is(transcriptionQuote.status, 200, JSON.stringify(transcriptionQuote.body));
  const seconds = transcriptionQuote.body.seconds as number;
  t.true(Number.isInteger(seconds) && seconds > 0);
  const transcriptionUnits = (BigInt(seconds) * 5_400n + 59n) / 60n;
  t.like(transcriptionQuote.body, { object: 'transcription.price', model: 'sim/stt', price_rub: `0.${transcriptionUnits.toString().padStart(4, '0')}` });
  const transcribed = await post(`${gateway.url}/cabinet/api/audio/transcriptions`, login, transcriptionForm());
  t.is(transcribed.status, 200, JSON.stringify(transcribed.body));
  t.is(typeof transcribed.body.text, 'string');

  // Upscale of a 2 s 1280x720 video ×1.5: 1920x1080 × 2 s = 4.1472 megapixel-seconds × 0.90 → 3.7325 at most.
  const upscaleForm = () => {
    const form = new FormData();
    form.set('model', 'sim/video-upscale');
    form.set('upscale_factor', '1.5');
    form.set('prompt', 'sharper [[sim:job-seconds=0.2]]');
    form.set('idempotency_key', 'page-upscale-1');
    form.set('video', new Blob([mp4Video({ width: 1280, height: 720, seconds: 2, seed: 'upscale' })], { type: 'video/mp4' }), 'clip.mp4');
    return form;
  };
  const upscaleQuote = await post(`${gateway.url}/cabinet/api/videos/upscale/price`, login, upscaleForm());
  t.deepEqual(upscaleQuote.body, { object: 'video.upscale.price', model: 'sim/video-upscale', seconds: 2, input_size: '1280x720', size: '1920x1080', price_rub: '3.7325', price_usd: '0.041472' });
  const upscale = await post(`${gateway.url}/cabinet/api/videos/upscale`, login, upscaleForm());
  t.is(upscale.status, 200, JSON.stringify(upscale.body));
  t.is((await post(`${gateway.url}/cabinet/api/videos/upscale`, login, upscaleForm())).body.id, upscale.body.id, 'submitted again: the same job');
  const upscaled = await finished(`${gateway.url}/cabinet/api/videos/${upscale.body.id}`, login);
  t.is(upscaled.status, 'completed');
  const upscaleCharge = (await charges(database, accountId))[2]!;
  t.true(upscaleCharge > 0n && upscaleCharge <= 37_325n, `the upscale settled at ${upscaleCharge} units, at most its quote`);

  t.deepEqual((await charges(database, accountId)).slice(0, 2), [297n, transcriptionUnits]);
  t.is((await charges(database, accountId)).length, 3);
  const history = await cabinetCharges(gateway.url, login);
  assertCharged(t, history, 'sim/tts', '-0.0297');
  assertCharged(t, history, 'sim/stt', `-0.${transcriptionUnits.toString().padStart(4, '0')}`);
  t.is(history.filter((row) => row.model === 'sim/video-upscale' && row.key_name === 'cabinet').length, 1);
  await assertJobMoneySettled(t, database, accountId);
});

testOnBackends('playground jobs need the CSRF token and the scope: without either nothing is made or held', async (t, database) => {
  const gateway = await startJobGateway(t, database);
  const { accountId } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const login = await loginAs(gateway.url, gateway.services, { account: accountId });
  const song = { model: 'sim/instrumental', prompt: 'rain on a tin roof', idempotency_key: 'page-song-2' };

  const noToken = await fetch(`${gateway.url}/cabinet/api/audio/music`, { method: 'POST', headers: { cookie: login.cookie, 'content-type': 'application/json' }, body: JSON.stringify(song) });
  t.is(noToken.status, 403);
  t.is(((await noToken.json()) as any).error.code, 'csrf_token_invalid');

  // The account's cabinet key narrowed to chat (as an operator could): the music routes say which scope is missing.
  t.is((await post(`${gateway.url}/cabinet/api/images/price`, login, { model: 'sim/image', prompt: 'x' })).status, 200, 'the cabinet key exists now');
  await database.db('api_keys').where({ account_id: accountId, purpose: 'cabinet' }).update({ scopes: 'chat' });
  for (const path of ['/cabinet/api/audio/music/price', '/cabinet/api/audio/music']) {
    const refused = await post(`${gateway.url}${path}`, login, song);
    t.is(refused.status, 403, path);
    t.is(refused.body.error.code, 'insufficient_scope', path);
    t.regex(refused.body.error.message, /"music" scope/, path);
  }
  const stranger = await fetch(`${gateway.url}/cabinet/api/videos/video_unknown`, { headers: { cookie: login.cookie } });
  t.is(stranger.status, 403, 'polling needs the scope too');

  t.is((await database.db('jobs').where({ account_id: accountId })).length, 0);
  t.deepEqual(await charges(database, accountId), []);
  await assertJobMoneySettled(t, database, accountId);
});
