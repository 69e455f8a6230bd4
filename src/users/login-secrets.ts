// The secrets outside logins need, read from the environment variables the config names
// (cabinet.oidc[].client_secret_env, cabinet.telegram_login.bot_token_env). `serve` refuses to
// start while one is unset, naming the variable, rather than fail every such login later. Other
// commands, which serve no login, run without them.
import type { Config } from '../config/load.js';

export function missingLoginSecrets(config: Config): string[] {
  const problems = config.cabinet.oidc
    .filter((provider) => provider.clientSecret === undefined)
    .map((provider) => `cabinet.oidc "${provider.name}" names client_secret_env ${provider.clientSecretEnv}, which is not set in this process's environment: set it to the client secret the provider issued, or remove the provider`);
  const telegram = config.cabinet.telegramLogin;
  if (telegram !== undefined && telegram.botToken === undefined) {
    problems.push(`cabinet.telegram_login names bot_token_env ${telegram.botTokenEnv}, which is not set in this process's environment: set it to the bot's token (from @BotFather), or remove cabinet.telegram_login`);
  }
  return problems;
}
