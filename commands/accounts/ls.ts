import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { wholeList } from '../../src/cli/list-output.js';
import { presentAccount } from '../../src/cli/present.js';

export default class AccountsLs extends GatewayCommand {
  static override description = 'List accounts with their balances';
  static override examples = ['<%= config.bin %> accounts ls', { description: 'JSON: {object: "list", data: [accounts], has_more: false}', command: '<%= config.bin %> accounts ls --json' }];

  async run(): Promise<void> {
    const { flags } = await this.parse(AccountsLs);
    await this.runWithServices(flags, async ({ accounts }) => {
      const rows = (await accounts.list()).map((account) => presentAccount(account));
      return { json: wholeList(rows), text: table(rows, ['id', 'name', 'state', 'balance_rub', 'held_rub', 'available_rub', 'created_at']) };
    });
  }
}
