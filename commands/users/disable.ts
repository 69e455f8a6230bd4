import { Args } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentUser } from '../../src/cli/present.js';

export default class UsersDisable extends GatewayCommand {
  static override description = 'Disable a user: their web cabinet sessions end at once and they cannot log in; the accounts they belong to keep working for their other members. Written to the audit log';
  static override examples = ['<%= config.bin %> users disable usr_…', '<%= config.bin %> users disable someone@example.com --json'];
  static override args = { user: Args.string({ description: 'user id (usr_…) or email address', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(UsersDisable);
    await this.runWithServices(flags, async ({ users }) => {
      const before = await users.users.findByReference(args.user);
      const user = await users.users.setDisabled(before.id, true, cliActor());
      const changed = before.disabledAt === null;
      return { json: { ...presentUser(user), changed }, text: changed ? `disabled ${user.email ?? user.id} (${user.id}): their sessions are ended` : `${user.email ?? user.id} (${user.id}) was already disabled; nothing changed` };
    });
  }
}
