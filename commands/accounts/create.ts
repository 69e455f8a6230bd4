import { Args } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentAccount } from '../../src/cli/present.js';

export default class AccountsCreate extends GatewayCommand {
  static override description = 'Create an account (a balance that API keys spend from). Written to the audit log';
  static override examples = ['<%= config.bin %> accounts create acme', '<%= config.bin %> accounts create acme --json'];
  static override args = { name: Args.string({ description: 'unique account name', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AccountsCreate);
    await this.runWithServices(flags, async ({ accounts }) => {
      const account = await accounts.create(args.name, { actor: cliActor() });
      return { json: presentAccount(account), text: `created account ${account.name} (${account.id})` };
    });
  }
}
