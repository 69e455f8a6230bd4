import { Flags } from '@oclif/core';
import { readHistory } from '../../src/billing/history.js';
import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { pagedList } from '../../src/cli/list-output.js';

export default class BalanceHistory extends GatewayCommand {
  static override description = 'Show the ledger of an account, newest first (the same rows as GET /v1/history)';
  static override examples = ['<%= config.bin %> balance history --account acme', { description: 'the next page: pass next_cursor of the previous --json page', command: '<%= config.bin %> balance history --account acme --limit 20 --cursor NEXT_CURSOR --json' }];
  static override flags = {
    account: Flags.string({ description: 'account id or name', required: true }),
    limit: Flags.integer({ description: 'rows per page', min: 1, max: 200, default: 50 }),
    cursor: Flags.string({ description: 'next_cursor of the previous page' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(BalanceHistory);
    await this.runWithServices(flags, async ({ accounts, db }) => {
      const account = await accounts.find(flags.account);
      const page = await readHistory(db, account.id, { limit: flags.limit, cursor: flags.cursor });
      const rows = page.data.map((item) => ({ ...item, created_at: new Date(item.created_at * 1000).toISOString() }));
      let text = table(rows, ['id', 'created_at', 'kind', 'amount_rub', 'balance_after_rub', 'model', 'description']);
      if (page.next_cursor) text += `\n\nmore: --cursor ${page.next_cursor}`;
      return { json: pagedList(page.data, page.next_cursor), text };
    });
  }
}
