import { GatewayCommand, table } from '../../../src/cli/base-command.js';
import { wholeList } from '../../../src/cli/list-output.js';
import { presentAdminToken } from '../../../src/cli/present-cabinet.js';

export default class AdminTokensLs extends GatewayCommand {
  static override description = 'List admin tokens with their scopes (never their secrets)';
  static override examples = ['<%= config.bin %> admin tokens ls', { description: 'JSON: {object: "list", data: [tokens], has_more: false}', command: '<%= config.bin %> admin tokens ls --json' }];

  async run(): Promise<void> {
    const { flags } = await this.parse(AdminTokensLs);
    await this.runWithServices(flags, async ({ cabinet }) => {
      const rows = (await cabinet.adminTokens.list()).map(presentAdminToken);
      const text = table(
        rows.map((row) => ({ ...row, token: `${row.prefix}…${row.last4}`, scopes: row.scopes.join(','), status: row.revoked_at ? 'revoked' : 'active' })),
        ['id', 'name', 'token', 'scopes', 'status', 'created_by', 'created_at', 'last_used_at'],
      );
      return { json: wholeList(rows), text };
    });
  }
}
