import { Flags } from '@oclif/core';
import { cliActor } from '../../../src/audit/audit-log.js';
import { allAdminScopes, parseAdminScopes } from '../../../src/cabinet/admin-scopes.js';
import { GatewayCommand } from '../../../src/cli/base-command.js';
import { presentAdminToken } from '../../../src/cli/present-cabinet.js';

export default class AdminTokensCreate extends GatewayCommand {
  static override description =
    'Create an admin token for the admin API (Authorization: Bearer gwa_…). The token is printed once and never stored; creating it is audited with its scopes. ' +
    'Scopes: read (every GET that reveals no secret), accounts (create, disable, enable accounts), keys (create, revoke API keys), ' +
    'money (top up, adjust, cancel jobs), admin (read secrets: an account with its webhook secret). A route outside the token\'s scopes answers 403 admin_scope_missing.';
  static override examples = [
    '<%= config.bin %> admin tokens create --name ci',
    { description: 'A token for a billing script: reads everything without secrets, moves money', command: '<%= config.bin %> admin tokens create --name billing --scopes read,money' },
    { description: 'JSON: the token row (with its scopes) plus `token`, the secret', command: '<%= config.bin %> admin tokens create --name ci --scopes read --json' },
  ];
  static override flags = {
    name: Flags.string({ description: 'what the token is for (shown by `admin tokens ls`)', required: true }),
    scopes: Flags.string({ description: `comma-separated admin scopes (default: all of ${allAdminScopes.join(',')})` }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(AdminTokensCreate);
    await this.runWithServices(flags, async ({ cabinet }) => {
      const scopes = flags.scopes === undefined ? [...allAdminScopes] : parseAdminScopes(flags.scopes);
      const { adminToken, token } = await cabinet.adminTokens.create({ name: flags.name, scopes, actor: cliActor() });
      const power = adminToken.scopes.length === allAdminScopes.length ? 'It opens the whole admin API.' : `It opens the admin API's ${adminToken.scopes.join(', ')} routes only.`;
      return {
        json: { ...presentAdminToken(adminToken), token },
        text: `${token}\n\nadmin token ${adminToken.id} (${adminToken.name}), scopes ${adminToken.scopes.join(',')}.\nThis is the only time the token is shown: store it now. ${power}`,
      };
    });
  }
}
