import { GatewayCommand } from '../src/cli/base-command.js';
import { startProcess } from '../src/process/start.js';

export default class BotCommand extends GatewayCommand {
  static override description =
    'Run the Telegram bot (the `bot` section of the config; docs/bot.md): customers chat with the models, see their balance and top up from Telegram, on the same accounts, balance and history as the API and the cabinet. One bot per token: a second refuses to start while the first runs.';
  static override examples = ['TELEGRAM_BOT_TOKEN=123456:ABC… <%= config.bin %> bot'];

  async run(): Promise<void> {
    const { flags } = await this.parse(BotCommand);
    this.jsonOutput = flags.json;
    try {
      await startProcess(this.loadConfiguration(flags.config), { json: flags.json }, async (services) => {
        // grammY is loaded only here: a process without the bot never pays for it.
        const { startBot } = await import('../src/bot/start-bot.js');
        // The bot's chat requests place holds carrying this process's id: registered and beating first.
        await services.holdOwner.register();
        services.holdOwner.start();
        services.usageRecords.start();
        const bot = await startBot(services).catch(async (error: unknown) => {
          await services.holdOwner.stop({ forget: true }).catch(() => undefined);
          throw error;
        });
        return {
          json: { bot: bot.username, mode: services.config.bot!.mode, ...(bot.webhookUrl ? { webhook_listen: bot.webhookUrl } : {}) },
          text: `gateway bot @${bot.username} running (${services.config.bot!.mode}; Ctrl-C to stop)`,
          async stop() {
            await bot.stop();
            await services.settles.close(10_000);
            await services.holdOwner.stop({ forget: true });
            await services.close();
          },
        };
      });
    } catch (error) {
      this.fail(error);
    }
  }
}
