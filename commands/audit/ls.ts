import { Flags } from '@oclif/core';
import { auditActions, presentAudit, readAudit } from '../../src/audit/audit-log.js';
import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { limitedList } from '../../src/cli/list-output.js';

export default class AuditLs extends GatewayCommand {
  static override description =
    'List the audit log of operator changes (accounts created, disabled and enabled, topups, adjustments, refunds, keys created, changed and revoked, jobs cancelled, login links, cabinet sessions and admin tokens), newest first';
  static override examples = [
    '<%= config.bin %> audit ls',
    { description: 'JSON: {object: "list", data: [entries], has_more}', command: '<%= config.bin %> audit ls --account acme --action balance.adjust --limit 20 --json' },
  ];
  static override flags = {
    account: Flags.string({ description: 'only entries about this account (id or name)' }),
    action: Flags.string({ description: 'only this action', options: [...auditActions] }),
    limit: Flags.integer({ description: 'at most this many', default: 50, min: 1, max: 1000 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(AuditLs);
    await this.runWithServices(flags, async ({ accounts, db }) => {
      const account = flags.account ? await accounts.find(flags.account) : undefined;
      const list = limitedList(await readAudit(db, { accountId: account?.id, action: flags.action, limit: flags.limit }), flags.limit);
      const data = list.data.map(presentAudit);
      let text = table(
        data.map((row) => ({ ...row, details: JSON.stringify(row.details) })),
        ['id', 'at', 'actor', 'action', 'target', 'details'],
      );
      if (list.has_more) text += `\nmore: raise --limit (now ${flags.limit})`;
      return { json: { ...list, data }, text };
    });
  }
}
