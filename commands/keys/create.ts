import { Flags } from '@oclif/core';
import { allScopes, parseScopes } from '../../src/auth/scopes.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentKey } from '../../src/cli/present.js';

export default class KeysCreate extends GatewayCommand {
  static override description = 'Create an API key for an account. The key is printed once and never stored.';
  static override examples = [
    '<%= config.bin %> keys create --account acme',
    '<%= config.bin %> keys create --account acme --scopes chat,images --name web --rpm 120',
  ];
  static override flags = {
    account: Flags.string({ description: 'account id or name', required: true }),
    scopes: Flags.string({ description: `comma-separated scopes (default: all of ${allScopes.join(',')})` }),
    name: Flags.string({ description: 'a label for the key' }),
    rpm: Flags.integer({ description: 'requests per minute for this key (default: rate_limit.requests_per_minute)', min: 1, max: 1_000_000 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(KeysCreate);
    await this.runWithServices(flags, async ({ accounts, apiKeys }) => {
      const scopes = flags.scopes === undefined ? [...allScopes] : parseScopes(flags.scopes);
      const account = await accounts.find(flags.account);
      const { apiKey, key } = await apiKeys.create({ accountId: account.id, scopes, name: flags.name, rpm: flags.rpm });
      const { id, prefix, last4, account_id, name, rpm } = presentKey(apiKey);
      return {
        json: { id, key, prefix, last4, scopes: apiKey.scopes, account_id, name, rpm },
        text: `${key}\n\nkey ${id} for account ${account.name}, scopes ${apiKey.scopes.join(',')}.\nThis is the only time the key is shown: store it now.`,
      };
    });
  }
}
