import { Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { allScopes, parseScopes } from '../../src/auth/scopes.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { controlsFromFlags, keyControlFlags } from '../../src/cli/key-flags.js';
import { presentCreatedKey } from '../../src/cli/present.js';

export default class KeysCreate extends GatewayCommand {
  static override description = 'Create an API key for an account. The key is printed once and never stored. Written to the audit log';
  static override examples = [
    '<%= config.bin %> keys create --account acme',
    '<%= config.bin %> keys create --account acme --scopes chat,images --name web --rpm 120',
    '<%= config.bin %> keys create --account acme --tpm 100000 --max-in-flight 4',
    "<%= config.bin %> keys create --account acme --expires 30d --models 'gpt-4o,sim/*' --allow-ips 10.0.0.0/8,203.0.113.7 --budget 100 --budget-period day",
  ];
  static override flags = {
    account: Flags.string({ description: 'account id or name', required: true }),
    scopes: Flags.string({ description: `comma-separated scopes (default: all of ${allScopes.join(',')})` }),
    name: Flags.string({ description: 'a label for the key' }),
    rpm: Flags.integer({ description: 'requests per minute for this key (default: rate_limit.requests_per_minute)', min: 1, max: 1_000_000 }),
    ...keyControlFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(KeysCreate);
    await this.runWithServices(flags, async ({ accounts, apiKeys, now }) => {
      const scopes = flags.scopes === undefined ? [...allScopes] : parseScopes(flags.scopes);
      const controls = controlsFromFlags(flags, now());
      const account = await accounts.find(flags.account);
      const { apiKey, key } = await apiKeys.create({ ...controls, accountId: account.id, scopes, name: flags.name, rpm: flags.rpm, audit: { actor: cliActor() } });
      return {
        json: presentCreatedKey(apiKey, key),
        text: `${key}\n\nkey ${apiKey.id} for account ${account.name}, scopes ${apiKey.scopes.join(',')}.\nThis is the only time the key is shown: store it now.`,
      };
    });
  }
}
