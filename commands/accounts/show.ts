import { Args } from '@oclif/core';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentAccount } from '../../src/cli/present.js';

export default class AccountsShow extends GatewayCommand {
  static override description = 'Show one account, including its webhook signing secret';
  static override examples = ['<%= config.bin %> accounts show acme', '<%= config.bin %> accounts show acc_… --json'];
  static override args = { account: Args.string({ description: 'account id (acc_…) or name', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AccountsShow);
    await this.runWithServices(flags, async ({ accounts, apiKeys }) => {
      const account = await accounts.find(args.account);
      const keys = await apiKeys.list(account.id);
      const json = { ...presentAccount(account, { withSecret: true }), keys: keys.length, active_keys: keys.filter((k) => k.revokedAt === null).length };
      const text = Object.entries(json)
        .map(([name, value]) => `${name.padEnd(15)} ${value}`)
        .join('\n');
      return { json, text };
    });
  }
}
