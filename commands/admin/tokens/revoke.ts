import { Args } from '@oclif/core';
import { cliActor } from '../../../src/audit/audit-log.js';
import { GatewayCommand } from '../../../src/cli/base-command.js';
import { presentAdminToken } from '../../../src/cli/present-cabinet.js';

export default class AdminTokensRevoke extends GatewayCommand {
  static override description = 'Revoke an admin token; it is refused from the very next request (audited)';
  static override examples = ['<%= config.bin %> admin tokens revoke adm_…'];
  static override args = { id: Args.string({ description: 'admin token id (adm_…)', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AdminTokensRevoke);
    await this.runWithServices(flags, async ({ cabinet }) => {
      const json = presentAdminToken(await cabinet.adminTokens.revoke(args.id, cliActor()));
      return { json, text: `revoked ${json.id} (${json.prefix}…${json.last4}) at ${json.revoked_at}` };
    });
  }
}
