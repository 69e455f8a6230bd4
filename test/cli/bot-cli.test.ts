// `gateway bot` as a process (docs/cli.md, docs/bot.md): it announces itself once it takes
// updates from the (fake) Bot API server, a second `gateway bot` on the same token refuses to
// start while the first runs, and after a graceful stop the next one starts. Both databases.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { testOnBackends } from '../helpers/backends.js';
import { runCli } from '../helpers/cli.js';
import { FakeBotApi } from '../helpers/fake-bot-api.js';
import { fastJobsConfig } from '../helpers/job-config.js';
import { processEnv, startProcess } from '../helpers/processes.js';

testOnBackends('a second gateway bot on the same token refuses to start while the first runs; after its stop the next starts', async (t, database) => {
  const api = await new FakeBotApi().start();
  t.teardown(() => api.close());
  const config = path.join(mkdtempSync(path.join(tmpdir(), 'gw-bot-')), 'gateway.yaml');
  writeFileSync(config, stringify(fastJobsConfig({ bot: { username: api.bot.username, token_env: 'TEST_BOT_TOKEN', api_url: api.url, default_model: 'sim/chat' } })));
  const env = processEnv(config, database, { TEST_BOT_TOKEN: api.token });
  const first = await startProcess(['bot'], env);
  t.teardown(() => first.stop());
  t.like(first.announced, { bot: api.bot.username, mode: 'polling' });
  t.true(api.callsOf('deleteWebhook').length >= 1, 'polling starts by removing any webhook');
  t.deepEqual(api.callsOf('setMyCommands').map((call) => [call.params.language_code ?? null, (call.params.commands as { command: string }[]).map((entry) => entry.command).join(',')]).sort(), [
    ['ru', 'new,image,video,music,models,settings,balance,topup,history,help'],
    [null, 'new,image,video,music,models,settings,balance,topup,history,help'],
  ].sort() as never);

  const second = await runCli(['bot', '--json'], env);
  t.is(second.exitCode, 1, second.stderr);
  t.regex(second.stderr + second.stdout, /bot_already_running/);
  t.regex(second.stderr + second.stdout, new RegExp(`another bot process holds bot ${api.bot.id} \\(pid ${first.announced.pid} on `));

  await first.stop();
  const third = await startProcess(['bot'], env);
  t.teardown(() => third.stop());
  t.like(third.announced, { bot: api.bot.username });
});
