import { Args } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentUser } from '../../src/cli/present.js';

export default class UsersEnable extends GatewayCommand {
  static override description = 'Enable a disabled user: they can log in again. Written to the audit log';
  static override examples = ['<%= config.bin %> users enable usr_…', '<%= config.bin %> users enable someone@example.com --json'];
  static override args = { user: Args.string({ description: 'user id (usr_…) or email address', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(UsersEnable);
    await this.runWithServices(flags, async ({ users }) => {
      const before = await users.users.findByReference(args.user);
      const user = await users.users.setDisabled(before.id, false, cliActor());
      const changed = before.disabledAt !== null;
      return { json: { ...presentUser(user), changed }, text: changed ? `enabled ${user.email ?? user.id} (${user.id})` : `${user.email ?? user.id} (${user.id}) was not disabled; nothing changed` };
    });
  }
}
