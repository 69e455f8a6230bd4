import { Flags } from '@oclif/core';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentBalance } from '../../src/cli/present.js';

export default class BalanceShow extends GatewayCommand {
  static override description = 'Show an account balance: total, held by running requests, available';
  static override examples = ['<%= config.bin %> balance show --account acme', '<%= config.bin %> balance show --account acme --json'];
  static override flags = { account: Flags.string({ description: 'account id or name', required: true }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(BalanceShow);
    await this.runWithServices(flags, async ({ accounts, ledger }) => {
      const account = await accounts.find(flags.account);
      const json = presentBalance(await ledger.balance(account.id));
      return { json, text: `${account.name}: balance ${json.balance_rub} RUB, held ${json.held_rub} RUB, available ${json.available_rub} RUB` };
    });
  }
}
