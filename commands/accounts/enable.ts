import { Args, Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentAccount } from '../../src/cli/present.js';

export default class AccountsEnable extends GatewayCommand {
  static override description = 'Enable a disabled account: its (unrevoked) keys work again from their next request. Written to the audit log';
  static override examples = ['<%= config.bin %> accounts enable acme --reason "paid"', '<%= config.bin %> accounts enable acc_… --json'];
  static override args = { account: Args.string({ description: 'account id (acc_…) or name', required: true }) };
  static override flags = { reason: Flags.string({ description: 'why (in the audit log)' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AccountsEnable);
    await this.runWithServices(flags, async ({ accounts }) => {
      const { account, changed } = await accounts.setDisabled(args.account, false, { reason: flags.reason ?? null, actor: cliActor() });
      const json = { ...presentAccount(account), changed };
      return { json, text: changed ? `enabled ${account.name} (${account.id})` : `${account.name} (${account.id}) was not disabled; nothing changed` };
    });
  }
}
