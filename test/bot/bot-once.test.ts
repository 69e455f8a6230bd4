// Updates are taken once (docs/bot.md, "One bot per token"): a second bot on the same token
// refuses to start while the first holds it, and takes over only after the holder's heartbeat
// is gone; a webhook update delivered twice (even two copies at once) is handled once.
import { startBot } from '../../src/bot/start-bot.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { testOnBackends } from '../helpers/backends.js';
import { eventually } from '../helpers/eventually.js';
import { sentTexts, startBotGateway, telegramUser } from './bot-gateway.js';

testOnBackends('a second bot on the same token refuses to start while the first holds it, naming the holder', async (t, database) => {
  const { gateway } = await startBotGateway(t, database);
  const error = await t.throwsAsync(startBot(gateway.services));
  t.true(error instanceof GatewayError);
  t.is((error as GatewayError).code, 'bot_already_running');
  t.regex(error!.message, new RegExp(`another bot process holds bot 7000001 \\(pid ${process.pid} on `));
  t.is(Number((await database.db('bot_locks').count({ n: '*' }).first())!.n), 1, 'the holder keeps its row');
});

testOnBackends('webhook mode: the secret token is checked and an update posted twice, even at once, is handled once', async (t, database) => {
  const { api, bot } = await startBotGateway(t, database, {
    bot: { mode: 'webhook', webhook: { public_url: 'https://bot.example.test', path: '/tg/hook', listen: '127.0.0.1:0', secret_token_env: 'TEST_BOT_SECRET' } },
    env: { TEST_BOT_SECRET: 'hook-secret_1' },
  });
  t.deepEqual(api.webhook, { url: 'https://bot.example.test/tg/hook', secret_token: 'hook-secret_1' });
  const post = (body: unknown, secret = 'hook-secret_1') =>
    fetch(`${bot.webhookUrl}/tg/hook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret }, body: JSON.stringify(body) });
  const update = api.message(telegramUser(601), '/help');
  t.is((await post(update, 'wrong')).status, 401, 'a wrong secret is refused');
  const answers = await Promise.all([post(update), post(update)]);
  t.deepEqual(answers.map((answer) => answer.status), [200, 200]);
  t.is((await post(update)).status, 200);
  await eventually(() => sentTexts(api, 601).length >= 1, { what: 'the answer to /help' });
  // A later update is handled after the duplicates: by then they would have answered too.
  await post(api.message(telegramUser(601), '/help'));
  await eventually(() => sentTexts(api, 601).length >= 2, { what: 'the second answer' });
  t.is(sentTexts(api, 601).length, 2, 'the update posted three times was answered once');
});
