import { Flags } from '@oclif/core';
import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { wholeList } from '../../src/cli/list-output.js';
import { presentKey } from '../../src/cli/present.js';

export default class KeysLs extends GatewayCommand {
  static override description = 'List API keys (never their secrets)';
  static override examples = ['<%= config.bin %> keys ls', { description: 'JSON: {object: "list", data: [keys], has_more: false}; never the secret', command: '<%= config.bin %> keys ls --account acme --json' }];
  static override flags = { account: Flags.string({ description: 'only this account (id or name)' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(KeysLs);
    await this.runWithServices(flags, async ({ accounts, apiKeys, now }) => {
      const accountId = flags.account ? (await accounts.find(flags.account)).id : undefined;
      const rows = (await apiKeys.list(accountId)).map(presentKey);
      const text = table(
        rows.map((row) => ({
          ...row,
          key: `${row.prefix}-…${row.last4}`,
          scopes: row.scopes.join(','),
          status: row.revoked_at ? 'revoked' : row.expires_at !== null && Date.parse(row.expires_at) <= now() ? 'expired' : 'active',
          models: row.models?.join(',') ?? 'any',
          allowed_ips: row.allowed_ips?.join(',') ?? 'any',
          budget: row.budget_rub === null ? 'none' : `${row.budget_rub}/${row.budget_period}`,
          in_flight: row.max_in_flight,
        })),
        ['id', 'account_id', 'key', 'name', 'scopes', 'rpm', 'tpm', 'in_flight', 'status', 'expires_at', 'models', 'allowed_ips', 'budget', 'last_used_at'],
      );
      return { json: wholeList(rows), text };
    });
  }
}
