import { Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { parseExpires } from '../../src/auth/key-policy.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { wholeList } from '../../src/cli/list-output.js';
import { presentCreatedInvite } from '../../src/cli/present-invites.js';
import { maxInvitesAtOnce } from '../../src/users/invites.js';

export default class InvitesCreate extends GatewayCommand {
  static override description =
    'Create sign-up invite codes (gwi_…) for `cabinet.signup: invite`: each code makes one account, once. The codes are printed once and stored only as hashes; creating them is audited.';
  static override examples = [
    '<%= config.bin %> invites create --count 5 --expires 30d',
    { description: 'JSON: {object: "list", data: [invites, each with its `code`], has_more: false}', command: '<%= config.bin %> invites create --count 2 --json' },
  ];
  static override flags = {
    count: Flags.integer({ description: `how many codes (1-${maxInvitesAtOnce})`, default: 1, min: 1, max: maxInvitesAtOnce }),
    expires: Flags.string({ description: 'when the codes stop working: a duration from now (30d, 12h, 2w), a date (2027-01-31), an ISO time, or never', default: '30d' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(InvitesCreate);
    await this.runWithServices(flags, async ({ users, now }) => {
      const at = now();
      const made = await users.invites.create({ count: flags.count, expiresAt: parseExpires(flags.expires, at), actor: cliActor(), at });
      const rows = made.map((one) => presentCreatedInvite(one, at));
      const until = rows[0]!.expires_at === null ? 'never expire' : `work until ${rows[0]!.expires_at}`;
      return {
        json: wholeList(rows),
        text: `${rows.map((row) => row.code).join('\n')}\n\n${rows.length} invite code${rows.length === 1 ? '' : 's'}; each makes one account, once; they ${until}.\nThis is the only time the codes are shown: hand them out now.`,
      };
    });
  }
}
