import { Flags } from '@oclif/core';
import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { wholeList } from '../../src/cli/list-output.js';
import { presentInvite } from '../../src/cli/present-invites.js';

export default class InvitesLs extends GatewayCommand {
  static override description = 'List sign-up invite codes that still work (never the codes, only their last four characters); --all adds used, revoked and expired ones';
  static override examples = ['<%= config.bin %> invites ls', { description: 'JSON: {object: "list", data: [invites], has_more: false}', command: '<%= config.bin %> invites ls --all --json' }];
  static override flags = { all: Flags.boolean({ description: 'used, revoked and expired codes too', default: false }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(InvitesLs);
    await this.runWithServices(flags, async ({ users, now }) => {
      const at = now();
      const rows = (await users.invites.list({ all: flags.all })).map((invite) => presentInvite(invite, at));
      const text = table(
        rows.map((row) => ({ ...row, code: `gwi_…${row.last4}` })),
        ['id', 'code', 'status', 'expires_at', 'created_by', 'created_at', 'used_by', 'used_at'],
      );
      return { json: wholeList(rows), text };
    });
  }
}
