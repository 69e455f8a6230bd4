import { Flags } from '@oclif/core';
import { cliActor } from '../../../src/audit/audit-log.js';
import { GatewayCommand } from '../../../src/cli/base-command.js';
import { presentAdminToken } from '../../../src/cli/present-cabinet.js';

export default class AdminTokensCreate extends GatewayCommand {
  static override description = 'Create an admin token for the admin API (Authorization: Bearer gwa_…). The token is printed once and never stored; creating it is audited.';
  static override examples = ['<%= config.bin %> admin tokens create --name ci', { description: 'JSON: the token row plus `token`, the secret', command: '<%= config.bin %> admin tokens create --name ci --json' }];
  static override flags = { name: Flags.string({ description: 'what the token is for (shown by `admin tokens ls`)', required: true }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(AdminTokensCreate);
    await this.runWithServices(flags, async ({ cabinet }) => {
      const { adminToken, token } = await cabinet.adminTokens.create({ name: flags.name, actor: cliActor() });
      return {
        json: { ...presentAdminToken(adminToken), token },
        text: `${token}\n\nadmin token ${adminToken.id} (${adminToken.name}).\nThis is the only time the token is shown: store it now. It opens the whole admin API.`,
      };
    });
  }
}
