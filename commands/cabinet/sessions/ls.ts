import { Flags } from '@oclif/core';
import { GatewayCommand, table } from '../../../src/cli/base-command.js';
import { wholeList } from '../../../src/cli/list-output.js';
import { presentSession } from '../../../src/cli/present-cabinet.js';

export default class CabinetSessionsLs extends GatewayCommand {
  static override description = 'List web cabinet sessions (live ones unless --all): kind, account, last seen, end';
  static override examples = [
    '<%= config.bin %> cabinet sessions ls',
    { description: 'JSON: {object: "list", data: [sessions], has_more: false}', command: '<%= config.bin %> cabinet sessions ls --account acme --all --json' },
  ];
  static override flags = {
    account: Flags.string({ description: 'only sessions of this account (id or name)' }),
    all: Flags.boolean({ description: 'also sessions that ended (revoked, expired, idle)', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(CabinetSessionsLs);
    await this.runWithServices(flags, async ({ accounts, cabinet, now }) => {
      const accountId = flags.account ? (await accounts.find(flags.account)).id : undefined;
      const rows = (await cabinet.sessions.list({ accountId, all: flags.all })).map((session) => presentSession(session, now(), cabinet.settings.sessionIdleMs));
      const text = table(
        rows.map((row) => ({ ...row, account: row.account_name })),
        ['id', 'kind', 'account', 'status', 'created_at', 'last_seen_at', 'expires_at', 'address'],
      );
      return { json: wholeList(rows), text };
    });
  }
}
