import { Args } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentInvite } from '../../src/cli/present-invites.js';

export default class InvitesRevoke extends GatewayCommand {
  static override description = 'Revoke an unused sign-up invite code: it makes no account from now on (audited; a used code stays used)';
  static override examples = ['<%= config.bin %> invites revoke inv_…'];
  static override args = { id: Args.string({ description: 'invite id (inv_…, from `invites ls`)', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(InvitesRevoke);
    await this.runWithServices(flags, async ({ users, now }) => {
      const json = presentInvite(await users.invites.revoke(args.id, cliActor()), now());
      return { json, text: `${json.id} (gwi_…${json.last4}) is ${json.status}` };
    });
  }
}
