import { Args } from '@oclif/core';
import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { presentUserDetail } from '../../src/cli/present.js';

export default class UsersShow extends GatewayCommand {
  static override description = 'Show a user and the accounts they act for, with their role in each';
  static override examples = ['<%= config.bin %> users show usr_…', '<%= config.bin %> users show someone@example.com --json'];
  static override args = { user: Args.string({ description: 'user id (usr_…) or email address', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(UsersShow);
    await this.runWithServices(flags, async ({ users }) => {
      const user = await users.users.findByReference(args.user);
      const json = presentUserDetail(user, await users.members.ofUser(user.id));
      const { memberships, ...fields } = json;
      const text = `${Object.entries(fields).map(([name, value]) => `${name}: ${String(value ?? '-')}`).join('\n')}\n\n${memberships.length === 0 ? 'a member of no account' : table(memberships, ['account_id', 'account_name', 'role', 'joined_at'])}`;
      return { json, text };
    });
  }
}
