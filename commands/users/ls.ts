import { Flags } from '@oclif/core';
import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { wholeList } from '../../src/cli/list-output.js';
import { presentUser } from '../../src/cli/present.js';

export default class UsersLs extends GatewayCommand {
  static override description = "List the users who log in to the web cabinet (never a password); --account: only that account's members";
  static override examples = ['<%= config.bin %> users ls', '<%= config.bin %> users ls --account acme', { description: 'JSON: {object: "list", data: [users], has_more: false}', command: '<%= config.bin %> users ls --json' }];
  static override flags = { account: Flags.string({ description: 'account id (acc_…) or name' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(UsersLs);
    await this.runWithServices(flags, async ({ accounts, users }) => {
      const accountId = flags.account === undefined ? undefined : (await accounts.find(flags.account)).id;
      const rows = (await users.users.list({ accountId })).map(presentUser);
      return { json: wholeList(rows), text: table(rows, ['id', 'email', 'name', 'state', 'created_at', 'last_login_at']) };
    });
  }
}
