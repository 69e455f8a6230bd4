// The bot's media (docs/bot.md, "Images, video and music", "Voice"), against the fake Bot API
// server, with the example catalog's simulator models and a job runner in the gateway: an image
// made after its quote's button is pressed (charged exactly the quote, once for two presses),
// a video and a song delivered when their jobs complete, a failed job told, a voice message
// answered (and spoken when switched on), the bot's generations in a linked cabinet account's
// gallery, and a blocked user's delivery that does not fail the job. On both databases.
import type { ExecutionContext } from 'ava';
import { silentOggOpus } from '../../src/sim/media/ogg-opus.js';
import { startBot } from '../../src/bot/start-bot.js';
import { assertLedgerInvariants, testOnBackends, type TestDatabase } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { FakeBotApi } from '../helpers/fake-bot-api.js';
import { startGateway } from '../helpers/gateway.js';
import { fastJobsConfig } from '../helpers/job-config.js';
import { charges } from '../helpers/jobs.js';
import { testClock } from '../helpers/clock.js';
import { newMember, userLogin } from '../helpers/users.js';
import { sentTexts, telegramUser } from './bot-gateway.js';

async function startMediaBot(t: ExecutionContext, database: TestDatabase, cabinet: Record<string, unknown> = { signup: 'open', signup_bonus: '200.00' }, now?: () => number, uploadLimitBytes?: number) {
  const api = await new FakeBotApi().start();
  t.teardown(() => api.close());
  const base = fastJobsConfig();
  const raw = {
    ...base,
    cabinet: { ...base.cabinet, ...cabinet },
    bot: { username: api.bot.username, token_env: 'TEST_BOT_TOKEN', api_url: api.url, default_model: 'sim/chat', edit_interval: '1ms' },
  };
  const gateway = await startGateway(t, database, { raw, env: { TEST_BOT_TOKEN: api.token }, jobRunner: true, now });
  const bot = await startBot(gateway.services, { wait: async () => undefined, uploadLimitBytes });
  t.teardown(() => bot.stop());
  return { api, gateway, bot };
}

async function accountOf(gateway: { services: any }, telegramId: number): Promise<string> {
  const user = await gateway.services.users.users.findByIdentity('telegram', String(telegramId));
  const [membership] = await gateway.services.users.members.ofUser(user!.id);
  return membership!.accountId;
}

/** Sends `/command prompt`, waits for the quote; returns its button's data and the message id it sits under. */
async function quoteOf(api: FakeBotApi, person: ReturnType<typeof telegramUser>, command: string) {
  const before = api.callsOf('sendMessage', person.id).length;
  api.pushUpdate(api.message(person, command));
  const call = await eventually(() => api.callsOf('sendMessage', person.id).slice(before).find((c) => c.params.reply_markup !== undefined), { what: `the quote of ${command}` });
  const button = (call.params.reply_markup as any).inline_keyboard[0][0] as { text: string; callback_data: string };
  return { text: String(call.params.text), button, messageId: (call.answer!.result as { message_id: number }).message_id };
}

testOnBackends('an image is generated after its quote’s button is pressed: charged exactly the quote, sent as a photo and a document; a second press does nothing', async (t, database) => {
  const { api, gateway } = await startMediaBot(t, database);
  const person = telegramUser(801);
  api.pushUpdate(api.message(person, '/start'));
  await eventually(() => sentTexts(api, 801).length >= 2, { what: 'the welcome' });
  const accountId = await accountOf(gateway, 801);

  const quote = await quoteOf(api, person, '/image a lighthouse at dawn');
  t.is(quote.text, 'Image: <i>a lighthouse at dawn</i>');
  // sim/image's default price per image: 3.78 ₽.
  t.is(quote.button.text, 'Generate for 3.78 ₽');
  t.regex(quote.button.callback_data, /^buy:/);
  t.is(await database.db('ledger_transactions').where({ account_id: accountId, kind: 'charge' }).count({ n: '*' }).first().then((r: any) => Number(r.n)), 0, 'a quote charges nothing');

  api.pushUpdate(api.callback(person, quote.button.callback_data, quote.messageId));
  api.pushUpdate(api.callback(person, quote.button.callback_data, quote.messageId));
  const document = await eventually(() => api.callsOf('sendDocument', 801)[0], { what: 'the original as a document' });
  const photo = api.callsOf('sendPhoto', 801)[0]!;
  t.truthy(photo, 'the photo came first');
  t.is(photo.params.caption, 'Cost: 3.78 ₽');
  const photoFile = Object.values(photo.files)[0]!;
  const documentFile = Object.values(document.files)[0]!;
  t.deepEqual(photoFile.bytes.subarray(0, 8), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'a PNG');
  t.true(documentFile.bytes.equals(photoFile.bytes), 'the document is the original image');
  t.regex(documentFile.filename, /^image-.+-1\.png$/);
  const answers = await eventually(() => (api.callsOf('answerCallbackQuery').length >= 2 ? api.callsOf('answerCallbackQuery') : undefined), { what: 'both presses answered' });
  t.deepEqual(
    answers.map((call) => call.params.text ?? null),
    [null, 'Already started.'],
    'the first press runs it; the second is told it is running',
  );

  t.deepEqual(await charges(database, accountId), [37_800n], 'charged once, exactly the quote');
  t.is(api.callsOf('sendPhoto', 801).length, 1);
  const logged = await eventually(() => database.db('request_log').where({ account_id: accountId, route: '/v1/images/generations' }).first(), { what: 'the request-log row' });
  t.like(logged, { source: 'bot', model: 'sim/image', status: 200 });
  t.is(BigInt(logged.charged_units), 37_800n);
  const generation = await database.db('generations').where({ account_id: accountId, type: 'image' }).first();
  t.is(generation.prompt, 'a lighthouse at dawn');
  const balance = await gateway.services.ledger.balance(accountId);
  t.is(balance.balanceUnits, 2_000_000n - 37_800n);
  t.is(balance.heldUnits, 0n);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('a video is delivered when its job completes, a song as two audio messages; both in the linked cabinet account’s gallery with the image', async (t, database) => {
  const { api, gateway } = await startMediaBot(t, database, { signup: 'closed' });
  const { services, url } = gateway;
  const { accountId } = await gateway.newClient({ balanceUnits: 2_000_000n });
  const user = await newMember(services, { accountId, role: 'owner' });
  const browser = await userLogin(services, { accountId, userId: user.id });
  const headers = { cookie: browser.cookie, 'x-csrf-token': browser.csrf };
  const created = (await (await fetch(`${url}/cabinet/api/telegram/link`, { method: 'POST', headers })).json()) as { link: string };
  const person = telegramUser(802);
  api.pushUpdate(api.message(person, `/start ${new URL(created.link).searchParams.get('start')}`));
  await eventually(async () => (await services.users.users.findByIdentity('telegram', '802'))?.id === user.id, { what: 'linked' });

  const video = await quoteOf(api, person, '/video waves on a shore');
  // sim/video: 4 s at 9.00 ₽ a second.
  t.is(video.button.text, 'Generate for 36.00 ₽');
  api.pushUpdate(api.callback(person, video.button.callback_data, video.messageId));
  await eventually(() => sentTexts(api, 802).includes('Video is queued. I will send it here when it is ready.'), { what: 'queued' });
  const sentVideo = await eventually(() => api.callsOf('sendVideo', 802)[0], { what: 'the video delivered' });
  t.is(sentVideo.params.caption, 'Cost: 36.00 ₽');
  const videoBytes = Object.values(sentVideo.files)[0]!.bytes;
  t.is(videoBytes.subarray(4, 8).toString('latin1'), 'ftyp', 'an MP4');
  const job = await database.db('jobs').where({ account_id: accountId, kind: 'video' }).first();
  t.is(job.status, 'completed');
  t.is(await eventually(async () => (await database.db('bot_deliveries').where({ job_id: job.id }).first()).outcome, { what: 'the delivery closed' }), 'delivered');

  const song = await quoteOf(api, person, '/music a song about the sea');
  t.is(song.button.text, 'Generate for 7.20 ₽');
  api.pushUpdate(api.callback(person, song.button.callback_data, song.messageId));
  const audio = await eventually(() => (api.callsOf('sendAudio', 802).length >= 2 ? api.callsOf('sendAudio', 802) : undefined), { what: 'the two tracks' });
  t.is(audio.length, 2, 'a song’s two tracks as two audio messages');
  t.is(audio[1]!.params.caption, 'Cost: 7.20 ₽');
  t.false(Object.values(audio[0]!.files)[0]!.bytes.equals(Object.values(audio[1]!.files)[0]!.bytes), 'two different tracks');

  const image = await quoteOf(api, person, '/image a red kite');
  api.pushUpdate(api.callback(person, image.button.callback_data, image.messageId));
  await eventually(() => api.callsOf('sendDocument', 802)[0], { what: 'the image' });

  t.deepEqual(await charges(database, accountId), [360_000n, 72_000n, 37_800n]);
  const gallery = async (type: string) => ((await (await fetch(`${url}/cabinet/api/generations?type=${type}`, { headers })).json()) as { data: { prompt: string | null; charged_rub: string; files: unknown[] }[] }).data;
  t.like((await gallery('image'))[0], { prompt: 'a red kite', charged_rub: '3.7800' });
  t.like((await gallery('video'))[0], { prompt: 'waves on a shore', charged_rub: '36.0000' });
  const songs = await gallery('music');
  t.like(songs[0], { prompt: 'a song about the sea', charged_rub: '7.2000' });
  t.is(songs[0]!.files.length, 2);
  const routes = async () => (await database.db('request_log').where({ account_id: accountId, source: 'bot' }).select('route')).map((row: any) => String(row.route)).sort();
  t.deepEqual(await eventually(async () => ((await routes()).length >= 3 ? routes() : undefined), { what: 'the request-log rows' }), ['/v1/audio/music', '/v1/images/generations', '/v1/videos']);
  const active = await database.db('holds').where({ account_id: accountId, status: 'active' }).count({ n: '*' }).first();
  t.is(Number(active!.n), 0);
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('a job that fails releases its hold and the user is told so; a blocked user’s delivery does not fail the job', async (t, database) => {
  const { api, gateway } = await startMediaBot(t, database);
  const person = telegramUser(803, 'ru');
  api.pushUpdate(api.message(person, '/start'));
  await eventually(() => sentTexts(api, 803).length >= 2, { what: 'the welcome' });
  const accountId = await accountOf(gateway, 803);

  // The simulator fails a video whose prompt asks it to ([[sim:job-fail]]).
  const failing = await quoteOf(api, person, '/video [[sim:job-fail]] a storm');
  t.is(failing.button.text, 'Создать за 36.00 ₽');
  api.pushUpdate(api.callback(person, failing.button.callback_data, failing.messageId));
  const told = await eventually(() => sentTexts(api, 803).find((text) => text.startsWith('Видео: не получилось')), { what: 'the failure told' });
  t.is(told, 'Видео: не получилось — сервис не смог это сделать. Ничего не списано; можно попробовать ещё раз.');
  const failed = await database.db('jobs').where({ account_id: accountId }).first();
  t.is(failed.status, 'failed');
  t.deepEqual(await charges(database, accountId), [], 'nothing charged');
  t.is((await gateway.services.ledger.balance(accountId)).heldUnits, 0n, 'the hold was released');

  const song = await quoteOf(api, person, '/music a lullaby');
  api.block(803);
  api.pushUpdate(api.callback(person, song.button.callback_data, song.messageId));
  const delivery = await eventually(() => database.db('bot_deliveries').whereNotNull('outcome').where({ telegram_id: '803' }).orderBy('created_at', 'desc').first().then((row: any) => (row?.outcome === 'blocked' ? row : undefined)), { what: 'the blocked delivery closed' });
  const job = await database.db('jobs').where({ id: delivery.job_id }).first();
  t.is(job.status, 'completed', 'the job completed regardless');
  t.is(api.callsOf('sendAudio', 803).filter((call) => call.answer?.ok).length, 0, 'nothing reached the chat');
  t.not((await database.db('bot_users').where({ telegram_id: '803' }).first()).blocked_at, null, 'the user is marked as having blocked the bot');
  t.deepEqual(await charges(database, accountId), [72_000n], 'the song was made and charged: not receiving it is the user’s doing');
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('a voice message is transcribed and answered; with spoken replies on, the answer also comes as a voice message', async (t, database) => {
  const { api, gateway } = await startMediaBot(t, database);
  const person = telegramUser(804);
  api.pushUpdate(api.message(person, '/start'));
  await eventually(() => sentTexts(api, 804).length >= 2, { what: 'the welcome' });
  const accountId = await accountOf(gateway, 804);

  const voice = (fileId: string) => {
    const update = api.message(person, '') as { message: Record<string, unknown> };
    delete update.message.text;
    update.message.voice = { file_id: fileId, file_unique_id: `u${fileId}`, duration: 3, mime_type: 'audio/ogg' };
    return update;
  };
  api.addFile('voice-1', silentOggOpus(3));
  api.pushUpdate(voice('voice-1'));
  const heard = await eventually(() => sentTexts(api, 804).find((text) => text.startsWith('🎙')), { what: 'the transcript shown' });
  t.is(heard, '🎙 <i>Simulated transcript of 3.0 seconds of audio.</i>');
  await eventually(() => api.callsOf('editMessageText', 804).find((call) => String(call.params.text).includes('Cost:')), { what: 'the answer' });
  const transcription = await eventually(() => database.db('request_log').where({ account_id: accountId, route: '/v1/audio/transcriptions' }).first(), { what: 'the transcription logged' });
  t.like(transcription, { source: 'bot', model: 'sim/stt', status: 200 });
  // 3 s at 0.54 ₽ a minute: 0.027 ₽ = 270 units.
  t.is(BigInt(transcription.charged_units), 270n);
  t.is(api.callsOf('sendVoice', 804).length, 0, 'not spoken while spoken replies are off');

  // Switched on with the settings' toggle.
  api.pushUpdate(api.message(person, '/settings'));
  const settings = await eventually(() => api.callsOf('sendMessage', 804).find((call) => String(call.params.text).startsWith('Settings')), { what: 'the settings' });
  api.pushUpdate(api.callback(person, 'set:spoken', (settings.answer!.result as { message_id: number }).message_id));
  await eventually(async () => (await database.db('bot_users').where({ telegram_id: '804' }).first())?.spoken_replies, { what: 'spoken replies on' });
  api.addFile('voice-2', silentOggOpus(2));
  api.pushUpdate(voice('voice-2'));
  const spoken = await eventually(() => api.callsOf('sendVoice', 804)[0], { what: 'the spoken reply' });
  const ogg = Object.values(spoken.files)[0]!.bytes;
  t.is(ogg.subarray(0, 4).toString('latin1'), 'OggS', 'Ogg Opus, as Telegram plays voice messages');
  const speech = await eventually(() => database.db('request_log').where({ account_id: accountId, route: '/v1/audio/speech' }).first(), { what: 'the speech logged' });
  t.like(speech, { source: 'bot', model: 'sim/tts', status: 200 });
  // 1350.00 ₽ per 1M characters of the answer spoken.
  const answer = String(api.callsOf('editMessageText', 804).at(-1)!.params.text).split('\n\n')[0]!;
  t.is(BigInt(speech.charged_units), (BigInt([...answer].length) * 13_500_000n + 999_999n) / 1_000_000n);
  // A typed message's answer is spoken too while the switch is on.
  api.pushUpdate(api.message(person, 'Hello there'));
  await eventually(() => api.callsOf('sendVoice', 804).length >= 2, { what: 'the typed answer spoken' });
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('a job still running when the bot stops is delivered by the next bot; an image Telegram refuses for its own reasons is refunded', async (t, database) => {
  const { api, gateway, bot } = await startMediaBot(t, database);
  const person = telegramUser(805);
  api.pushUpdate(api.message(person, '/start'));
  await eventually(() => sentTexts(api, 805).length >= 2, { what: 'the welcome' });
  const accountId = await accountOf(gateway, 805);

  const video = await quoteOf(api, person, '/video [[sim:job-seconds=6]] a slow sunrise');
  api.pushUpdate(api.callback(person, video.button.callback_data, video.messageId));
  await eventually(() => sentTexts(api, 805).includes('Video is queued. I will send it here when it is ready.'), { what: 'queued' });
  await bot.stop();
  t.is(api.callsOf('sendVideo', 805).length, 0, 'not delivered before the stop');
  t.is((await database.db('bot_deliveries').where({ telegram_id: '805' }).first()).delivered_at, null, 'the delivery is owed');
  const next = await startBot(gateway.services, { wait: async () => undefined });
  t.teardown(() => next.stop());
  await eventually(() => api.callsOf('sendVideo', 805)[0], { what: 'the video delivered by the next bot' });
  t.is(api.callsOf('sendVideo', 805).length, 1);

  const image = await quoteOf(api, person, '/image a paper boat');
  api.failNext('sendPhoto', { error_code: 400, description: 'Bad Request: IMAGE_PROCESS_FAILED' });
  api.pushUpdate(api.callback(person, image.button.callback_data, image.messageId));
  await eventually(() => sentTexts(api, 805).includes('The result could not be delivered here. Its charge has been returned to your balance.'), { what: 'the refund told' });
  const rows = await database.db('ledger_transactions').where({ account_id: accountId }).whereIn('kind', ['charge', 'refund']).orderBy('id').select('kind', 'amount_units');
  t.deepEqual(
    rows.map((row: any) => `${row.kind} ${BigInt(row.amount_units)}`),
    ['charge -360000', 'charge -37800', 'refund 37800'],
    'the video charged; the image charged and refunded',
  );
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('a quote’s button pressed after an hour is refused as stale, and nothing is made or charged', async (t, database) => {
  const clock = testClock({ running: true });
  const { api, gateway } = await startMediaBot(t, database, undefined, clock.now);
  const person = telegramUser(806);
  api.pushUpdate(api.message(person, '/start'));
  await eventually(() => sentTexts(api, 806).length >= 2, { what: 'the welcome' });
  const accountId = await accountOf(gateway, 806);
  const quote = await quoteOf(api, person, '/image a quiet harbour');
  clock.advance(3_600_001);
  api.pushUpdate(api.callback(person, quote.button.callback_data, quote.messageId));
  const answered = await eventually(() => api.callsOf('answerCallbackQuery')[0], { what: 'the press answered' });
  t.like(answered.params, { text: 'This offer has expired: send the request again for a fresh price.', show_alert: true });
  t.is(api.callsOf('sendPhoto', 806).length, 0);
  t.deepEqual(await charges(database, accountId), []);
});

testOnBackends('a video over the upload limit is sent as a download link that opens without a session, with Range, until it expires; an altered token is refused', async (t, database) => {
  const clock = testClock({ running: true });
  // Telegram's 50 MB, made small: the simulator's video is larger than 1 KB.
  const { api, gateway } = await startMediaBot(t, database, undefined, clock.now, 1024);
  const person = telegramUser(807);
  api.pushUpdate(api.message(person, '/start'));
  await eventually(() => sentTexts(api, 807).length >= 2, { what: 'the welcome' });
  const accountId = await accountOf(gateway, 807);

  const video = await quoteOf(api, person, '/video a long river');
  api.pushUpdate(api.callback(person, video.button.callback_data, video.messageId));
  const told = await eventually(() => sentTexts(api, 807).find((text) => text.startsWith('Video is ready')), { what: 'the link sent' });
  t.is(api.callsOf('sendVideo', 807).length, 0, 'not uploaded');
  const publicUrl = gateway.services.config.cabinet.publicUrl;
  const match = /^Video is ready but too large for Telegram\. Download it here \(the link works until (\d{4}-\d\d-\d\d \d\d:\d\d) UTC\): (\S+)$/.exec(told);
  t.truthy(match, told);
  const link = match![2]!;
  t.true(link.startsWith(`${publicUrl}/download/gwf_`), link);
  const job = await database.db('jobs').where({ account_id: accountId, kind: 'video' }).first();
  t.is(await eventually(async () => (await database.db('bot_deliveries').where({ job_id: job.id }).first()).outcome, { what: 'the delivery closed' }), 'link');
  const token = link.slice(`${publicUrl}/download/`.length);
  const stored = await database.db('file_links').first();
  t.not(stored.token_hash, token, 'only the hash is stored');
  t.false(JSON.stringify(stored).includes(token));

  // Fetched as a Telegram user's browser would: no cookie, no key.
  const address = `${gateway.url}/download/${token}`;
  const [fileId] = JSON.parse(typeof job.result === 'string' ? job.result : JSON.stringify(job.result)).fileIds as number[];
  const bytes = Buffer.from(await gateway.services.files.read((await gateway.services.files.get(accountId, fileId))!));
  t.true(bytes.length > 1024);
  const whole = await fetch(address);
  t.is(whole.status, 200);
  t.true(Buffer.from(await whole.arrayBuffer()).equals(bytes), 'the exact bytes');
  // The same headers as the file's content route (GET /v1/files/{id}/content) answers with a key of the account.
  const { key } = await gateway.services.apiKeys.create({ accountId });
  const viaKey = await fetch(`${gateway.url}/v1/files/${fileId}/content`, { headers: { authorization: `Bearer ${key}` } });
  await viaKey.arrayBuffer();
  for (const name of ['content-type', 'content-length', 'etag', 'last-modified', 'accept-ranges', 'content-disposition']) t.is(whole.headers.get(name), viaKey.headers.get(name), name);
  const part = await fetch(address, { headers: { range: 'bytes=10-29' } });
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), `bytes 10-29/${bytes.length}`);
  t.true(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(10, 30)));

  const altered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
  const refusedAltered = await fetch(`${gateway.url}/download/${altered}`);
  t.is(refusedAltered.status, 404);
  const alteredBody = await refusedAltered.json();
  t.like(alteredBody, { error: { code: 'not_found', message: 'This download link does not exist or has expired.' } });

  // Three days, the default bot.download_link_ttl; the text named when it ends.
  const expiresAt = Number(stored.expires_at);
  t.is(expiresAt - Number(stored.created_at), 3 * 24 * 3_600_000);
  t.is(match![1], new Date(expiresAt).toISOString().slice(0, 16).replace('T', ' '));
  clock.advance(expiresAt - clock.now() + 1);
  const refusedExpired = await fetch(address);
  t.is(refusedExpired.status, 404);
  t.deepEqual(await refusedExpired.json(), alteredBody, 'expired and altered answer alike');
  t.deepEqual(await charges(database, accountId), [360_000n], 'charged once, as any video');
  await assertLedgerInvariants(t, database.db);
});
