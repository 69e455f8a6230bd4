import { Args, Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentAccount } from '../../src/cli/present.js';

export default class AccountsDisable extends GatewayCommand {
  static override description =
    'Disable an account: every key of it is refused (403 account_disabled) from its next request, in every process; running jobs finish and settle. Written to the audit log';
  static override examples = ['<%= config.bin %> accounts disable acme --reason "unpaid invoice"', '<%= config.bin %> accounts disable acc_… --json'];
  static override args = { account: Args.string({ description: 'account id (acc_…) or name', required: true }) };
  static override flags = { reason: Flags.string({ description: 'why (kept with the account and in the audit log)' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AccountsDisable);
    await this.runWithServices(flags, async ({ accounts }) => {
      const { account, changed } = await accounts.setDisabled(args.account, true, { reason: flags.reason ?? null, actor: cliActor() });
      const json = { ...presentAccount(account), changed };
      return { json, text: changed ? `disabled ${account.name} (${account.id}): its keys are refused from now on` : `${account.name} (${account.id}) was already disabled; nothing changed` };
    });
  }
}
