// The price routes of speech, transcriptions and video upscales (issue 31: the playground quotes
// every kind before its call) on /v1 with a key: each answers the quote of the function that
// charges, needs the scope of what it prices, and makes, keeps, holds and charges nothing.
import { mp4Video } from '../../src/sim/media/mp4.js';
import { silentMp3 } from '../../src/sim/media/mp3.js';
import { testOnBackends } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

testOnBackends('speech, transcription and video upscale prices: the charging quote, the scope checked, nothing made, kept or held', async (t, database) => {
  const gateway = await startGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 1_000_000n });
  const chatOnly = await gateway.newClient({ balanceUnits: 1_000_000n, scopes: ['chat'] });
  const post = async (path: string, key: string, body: unknown) => {
    const form = body instanceof FormData;
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...(form ? {} : { 'content-type': 'application/json' }) },
      body: form ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  // Speech: 1350.00 per 1M characters, counted in code points: "Привет, мир! 👋" is 14.
  const speech = await post('/v1/audio/speech/price', client.key, { model: 'sim/tts', input: 'Привет, мир! 👋', voice: 'alloy' });
  t.deepEqual(speech, { status: 200, body: { object: 'speech.price', model: 'sim/tts', characters: 14, price_rub: '0.0189', price_usd: '0.00021' } });
  const badVoice = await post('/v1/audio/speech/price', client.key, { model: 'sim/tts', input: 'x', voice: 'nobody' });
  t.is(badVoice.status, 422);
  t.deepEqual(badVoice.body.detail[0].loc, ['body', 'voice']);

  // Transcription: 0.54 a minute, prorated to the second: 2.90 s (111 MP3 frames) is priced as 3 s → 0.0270.
  const audioForm = () => {
    const form = new FormData();
    form.set('model', 'sim/stt');
    form.set('file', new Blob([silentMp3(2.9)], { type: 'audio/mpeg' }), 'three.mp3');
    return form;
  };
  t.deepEqual(await post('/v1/audio/transcriptions/price', client.key, audioForm()), {
    status: 200,
    body: { object: 'transcription.price', model: 'sim/stt', seconds: 3, price_rub: '0.0270', price_usd: '0.0003' },
  });

  // Upscale ×2 of 640x360 for 3 s: 1280x720 × 3 s = 2.7648 megapixel-seconds × 0.90 = 2.48832 → 2.4884.
  const videoForm = () => {
    const form = new FormData();
    form.set('upscale_factor', '2');
    form.set('video', new Blob([mp4Video({ width: 640, height: 360, seconds: 3, seed: 'price' })], { type: 'video/mp4' }), 'clip.mp4');
    return form;
  };
  t.deepEqual(await post('/v1/videos/upscale/price', client.key, videoForm()), {
    status: 200,
    body: { object: 'video.upscale.price', model: 'sim/video-upscale', seconds: 3, input_size: '640x360', size: '1280x720', price_rub: '2.4884', price_usd: '0.027649' },
  });

  for (const [path, body, scope] of [
    ['/v1/audio/speech/price', { model: 'sim/tts', input: 'x', voice: 'alloy' }, 'audio'],
    ['/v1/audio/transcriptions/price', audioForm(), 'audio'],
    ['/v1/videos/upscale/price', videoForm(), 'video'],
  ] as const) {
    const refused = await post(path, chatOnly.key, body);
    t.is(refused.status, 403, path);
    t.regex(refused.body.error.message, new RegExp(`"${scope}" scope`), path);
  }

  for (const accountId of [client.accountId, chatOnly.accountId]) {
    t.is((await database.db('ledger_transactions').where({ account_id: accountId }).whereNot({ kind: 'topup' })).length, 0);
    t.is((await database.db('holds').where({ account_id: accountId })).length, 0);
    t.is((await database.db('files').where({ account_id: accountId })).length, 0);
  }
});
